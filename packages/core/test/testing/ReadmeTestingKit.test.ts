import * as fs from "node:fs"
import { describe, expect, it } from "vitest"

const root = new URL("../../../../", import.meta.url)
const read = (path: string) => fs.readFileSync(new URL(path, root), "utf8")

describe("README, Testing your code", () => {
  it("shows examples/testing-kit.test.ts as it is, which pnpm test runs", () => {
    const readme = read("README.md")
    const section = readme.slice(readme.indexOf("## Testing your code"))
    const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1]
    expect(block).toBe(read("examples/testing-kit.test.ts"))
  })
})
