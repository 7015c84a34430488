/**
 * A loopback fake exchange for the whole of one test file: started before its tests, closed after
 * them. What comes back reads like the server itself (`server.url`, `server.exchange`), valid once
 * the file's tests run.
 */
import type { FakeExchangeOptions } from "@account-bills/core/testing"
import { afterAll, beforeAll } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { FakeExchangeServer, type FakeExchangeServerService, type ListenOptions } from "../../src/FakeExchangeServer.js"

export const fileExchange = (options: FakeExchangeOptions & ListenOptions): FakeExchangeServerService => {
  let scope: Scope.CloseableScope | undefined
  let server: FakeExchangeServerService | undefined
  beforeAll(async () => {
    scope = await Effect.runPromise(Scope.make())
    server = await Effect.runPromise(FakeExchangeServer.make(options).pipe(Scope.extend(scope)))
  })
  afterAll(async () => {
    if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  })
  const started = (): FakeExchangeServerService => {
    if (server === undefined) throw new Error("the file's fake exchange is read before its tests run")
    return server
  }
  return {
    get url() {
      return started().url
    },
    get host() {
      return started().host
    },
    get port() {
      return started().port
    },
    get exchange() {
      return started().exchange
    },
    get exchanges() {
      return started().exchanges
    }
  }
}
