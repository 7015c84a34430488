/**
 * The view on a laptop: a request whose `Host` is not the listen address or `localhost` is refused
 * (DNS rebinding), only GET is answered, every answer carries the CSP, and no answer holds a
 * secret: no API key, secret or passphrase, and a store's URL is shown without its password.
 */
import { FakeExchange } from "@account-bills/core/testing"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as http from "node:http"
import { exportToFile } from "../../node/src/cli/ViewCommand.js"
import { ViewMain } from "../src/index.js"
import { label, makeStore, tempDir } from "./support/viewStore.js"

let scope: Scope.CloseableScope
let port: number
let dir: string

beforeAll(async () => {
  dir = tempDir("safety")
  const db = await makeStore(dir, { seed: 52, funding: 60, spot: 60, contract: 30 })
  scope = await Effect.runPromise(Scope.make())
  const served = await Effect.runPromise(
    ViewMain.serve({ db, label, port: 0, exportToFile, say: () => {}, warn: () => {} }).pipe(Scope.extend(scope))
  )
  port = Number(new URL(served.url).port)
}, 60_000)

afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
  fs.rmSync(dir, { recursive: true, force: true })
})

/** A request to the view with the `Host` and method given, as a page on another site would send it. */
const request = (target: string, options: { readonly host?: string; readonly method?: string } = {}) =>
  new Promise<{ readonly status: number; readonly headers: http.IncomingHttpHeaders; readonly body: string }>(
    (resolve, reject) => {
      const sent = http.request(
        {
          host: "127.0.0.1",
          port,
          path: target,
          method: options.method ?? "GET",
          headers: { host: options.host ?? `127.0.0.1:${port}` }
        },
        (response) => {
          let body = ""
          response.setEncoding("utf8").on("data", (chunk: string) => {
            body += chunk
          })
          response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }))
        }
      )
      sent.on("error", reject)
      sent.end()
    }
  )

const routes = [
  "/",
  "/assets/app.js",
  "/api/accounts",
  "/api/bills",
  "/api/balances?coin=BTC",
  "/api/audit",
  "/api/events"
]

describe("bills view is safe on a laptop", () => {
  it("refuses a request whose Host is another name, even one that resolves here (DNS rebinding)", async () => {
    for (const host of [
      `evil.example:${port}`,
      `127.0.0.1.evil.example:${port}`,
      "127.0.0.1",
      `localhost:${port + 1}`
    ]) {
      for (const route of routes) {
        const answer = await request(route, { host })
        expect(answer.status, `${host} ${route}`).toBe(403)
        expect(answer.body).toContain("refused: the Host header")
        expect(answer.body).not.toContain("bills")
      }
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
      expect((await request("/api/accounts", { host })).status).toBe(200)
    }
  })

  it("answers GET only: no route writes", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
      for (const route of routes) {
        const answer = await request(route, { method })
        expect(answer.status).toBe(405)
        expect(answer.headers.allow).toBe("GET")
      }
    }
  })

  it("every answer, refusals too, carries Content-Security-Policy default-src 'self'", async () => {
    for (const [route, host] of [
      ...routes.map((route) => [route, undefined] as const),
      ["/nope", undefined],
      ["/", "evil.example"]
    ] as const) {
      const answer = await request(route, host === undefined ? {} : { host })
      expect(answer.headers["content-security-policy"]).toMatch(/^default-src 'self'/)
      expect(answer.headers["x-content-type-options"]).toBe("nosniff")
    }
  })

  it("no answer holds the API key, its secret or passphrase", async () => {
    const secrets = Object.values(FakeExchange.defaultCredentials)
    for (const route of [...routes, "/api/bills?kind=spot&limit=500", "/download?format=ndjson&kind=funding"]) {
      const answer = await request(route)
      expect(answer.status, route).toBe(200)
      for (const secret of secrets) expect(answer.body).not.toContain(secret)
    }
  })
})
