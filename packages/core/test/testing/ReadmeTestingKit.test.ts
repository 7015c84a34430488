import * as fs from "node:fs"
import { describe, expect, it } from "vitest"

const root = new URL("../../../../", import.meta.url)
const read = (path: string) => fs.readFileSync(new URL(path, root), "utf8")

describe("docs/testing-your-code.md", () => {
  it("shows examples/testing-kit.test.ts as it is, which pnpm test runs", () => {
    const section = read("docs/testing-your-code.md")
    const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1]
    expect(block).toBe(read("examples/testing-kit.test.ts"))
  })

  it("shows the code under test, examples/test-your-code.ts, as it is", () => {
    const blocks = [...read("docs/testing-your-code.md").matchAll(/```ts\n([\s\S]*?)```/g)].map((found) => found[1])
    expect(blocks[1]).toBe(read("examples/test-your-code.ts"))
  })
})
