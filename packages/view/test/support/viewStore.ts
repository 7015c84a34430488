/**
 * A store for the view's tests: a local exchange's generated bills of the three accounts, seeded,
 * synced into a fresh SQLite file as `bills sync` keeps them, under one label.
 */
import { FakeExchange } from "@account-bills/core/testing"
import { FakeExchangeServer, NodeBillsApi } from "@account-bills/node"
import { StoreAccount, StoreLayer, Sync } from "@account-bills/store"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const credentials = {
  apiKey: Redacted.make(FakeExchange.defaultCredentials.apiKey),
  secret: Redacted.make(FakeExchange.defaultCredentials.secret),
  passphrase: Redacted.make(FakeExchange.defaultCredentials.passphrase)
}

/** The label the store keeps the account under. */
export const label = "main"

/** Syncs `seed`'s bills into `dir/bills.sqlite` and returns its path. */
export const makeStore = (
  dir: string,
  options: { readonly seed: number; readonly funding: number; readonly spot: number; readonly contract: number }
): Promise<string> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* FakeExchangeServer.make({
          rateLimit: false,
          generate: { seed: options.seed, funding: options.funding, spot: options.spot, contract: options.contract }
        })
        const db = path.join(dir, "bills.sqlite")
        yield* Sync.run({
          account: StoreAccount.make(credentials.apiKey, label),
          kinds: ["funding", "spot", "contract"]
        }).pipe(
          Effect.provide(NodeBillsApi.layer(credentials, { config: { baseUrl: server.url } })),
          Effect.provide(StoreLayer.layerFrom(db))
        )
        return db
      })
    )
  )

/** A fresh folder for a test's store. */
export const tempDir = (name: string) => fs.mkdtempSync(path.join(os.tmpdir(), `bills-view-${name}-`))
