import { FakeExchange } from "@account-bills/core/testing"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { FakeExchangeServer, type FakeExchangeServerService } from "../src/FakeExchangeServer.js"
import { expectNdjsonExport } from "./support/exportCheck.js"
import { exchangeEnv, runCli } from "./support/runCli.js"

let server: FakeExchangeServerService
let scope: Scope.CloseableScope

/** The CLI's environment for the v3 interface against the loopback fake. */
const env = (overrides: Record<string, string> = {}) =>
  exchangeEnv(server.url, { WEEX_API_VERSION: "v3", ...overrides })

beforeAll(async () => {
  scope = await Effect.runPromise(Scope.make())
  server = await Effect.runPromise(
    FakeExchangeServer.make({
      apiVersion: "v3",
      generate: { seed: 303, funding: 260, spot: 650, sameMillisecondGroup: { every: 30, size: 4 } }
    }).pipe(Scope.extend(scope))
  )
})

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const exchangeBills = (account: "funding" | "spot") => Effect.runPromise(server.exchange.bills(account))
const paths = () =>
  Effect.runPromise(Effect.map(server.exchange.requests, (log) => new Set(log.map((request) => request.path))))

describe("WEEX_API_VERSION=v3, as processes against the loopback fake in v3 mode", () => {
  for (const account of ["funding", "spot"] as const) {
    it(`bills export --account ${account} writes every bill once, field for field, over the v3 paths`, async () => {
      const result = await runCli(["export", "--account", account], env())
      expect(result.code).toBe(0)
      expectNdjsonExport(result.stdout, await exchangeBills(account))
      // The fake in v3 mode answers 404 on the v2 paths, so success proves the client spoke v3.
      for (const sent of await paths()) expect(sent).toMatch(/^\/api\/v3\//)
    }, 60_000)
  }

  it("bills sync stores both accounts exactly: the store's export is the exchange's, and the chains hold", async () => {
    const db = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "bills-v3-")), "bills.sqlite")
    const sync = await runCli(["sync", "--db", db], env())
    expect(sync.stderr).toContain("funding: 260 new bills")
    expect(sync.stderr).toContain("spot: 650 new bills")
    expect(sync.code).toBe(0)
    for (const account of ["funding", "spot"] as const) {
      const stored = await runCli(
        ["export", "--account", account, "--db", db],
        env({ WEEX_BASE_URL: "http://127.0.0.1:9" })
      )
      expect(stored.code).toBe(0)
      expectNdjsonExport(stored.stdout, await exchangeBills(account))
    }
    const audit = await runCli(["audit", "--account", "all", "--db", db], env({ WEEX_BASE_URL: "http://127.0.0.1:9" }))
    expect(audit.stdout).toContain("whole: every chain holds")
    expect(audit.code).toBe(0)
  }, 180_000)

  it("a wrong secret: exit 1, one line naming the failure (-1047, Authentication), the secret nowhere", async () => {
    const wrong = "wrong-secret-v3-Qx72"
    const result = await runCli(["export", "--account", "spot"], env({ WEEX_API_SECRET: wrong }))
    expect(result.code).toBe(1)
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1)
    expect(result.stderr).toContain("-1047")
    expect(result.stderr).toContain("Authentication")
    for (const text of [result.stdout, result.stderr]) {
      expect(text).not.toContain(wrong)
      expect(text).not.toContain(FakeExchange.defaultCredentials.passphrase)
    }
  })

  it("an unknown WEEX_API_VERSION is refused in one line before anything is sent", async () => {
    const before = (await Effect.runPromise(server.exchange.requests)).length
    const result = await runCli(["export", "--account", "spot"], env({ WEEX_API_VERSION: "v9" }))
    expect(result.code).toBe(1)
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1)
    expect(result.stderr).toContain("WEEX_API_VERSION")
    expect((await Effect.runPromise(server.exchange.requests)).length).toBe(before)
  })

  it("WEEX_API_VERSION=v2 against it: the exchange's 404 on the v2 path is told as the version or base URL being wrong, one line, exit 1", async () => {
    // The answer as a v3-only exchange gives it: HTTP 404, a v2-shaped body.
    const raw = await fetch(`${server.url}/api/v2/account/bills`, { method: "POST", body: "{}" })
    expect(raw.status).toBe(404)
    expect(await raw.json()).toEqual({ code: "40404", msg: "Request URL NOT FOUND" })
    for (const account of ["funding", "spot"] as const) {
      const result = await runCli(["export", "--account", account], env({ WEEX_API_VERSION: "v2" }))
      expect(result.code).toBe(1)
      expect(result.stdout).toBe("")
      const path = account === "funding" ? "/api/v2/account/fundingBills" : "/api/v2/account/bills"
      expect(result.stderr).toBe(
        `bills: ${account}Bills: the exchange has no ${path} at ${new URL(server.url).origin} (HTTP 404, code 40404: Request URL NOT FOUND): the likely cause is WEEX_API_VERSION (apiVersion) naming another interface version than the exchange serves there (v2 or v3), or WEEX_BASE_URL (baseUrl) pointing elsewhere\n`
      )
    }
  }, 60_000)
})

describe("pnpm fake-exchange --api-version v3", () => {
  it("serves the v3 time endpoint on loopback", async () => {
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")
    const bin = path.join(root, "packages/node/src/bin/fake-exchange.ts")
    const child = spawn(
      process.execPath,
      [
        "--conditions=@account-bills/source",
        "--import",
        "tsx",
        bin,
        "--api-version",
        "v3",
        "--funding",
        "1",
        "--spot",
        "1"
      ],
      { cwd: root, env: { PATH: process.env.PATH ?? "" }, stdio: ["ignore", "pipe", "pipe"] }
    )
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = ""
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          out += chunk
          const found = /listening on (http:\/\/\S+)/.exec(out)
          if (found?.[1] !== undefined) resolve(found[1])
        })
        child.on("close", () => reject(new Error(`fake-exchange ended: ${out}`)))
      })
      const time = await fetch(`${url}/api/v3/time`)
      const body = (await time.json()) as { readonly serverTime: unknown }
      expect(typeof body.serverTime).toBe("number")
      expect((await fetch(`${url}/api/v2/public/time`)).status).toBe(404)
    } finally {
      child.kill("SIGTERM")
    }
  }, 60_000)
})
