/**
 * A sync in a process of its own, for the crash test: `tsx syncChild.ts STORE BASE_URL LEASE_MS RPS`.
 * Prints one line per committed page, so the parent can pick its moment to SIGKILL it.
 */
import { NodeBillsApi } from "@account-bills/node"
import { FakeExchange } from "@account-bills/core/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as StoreAccount from "../../src/StoreAccount.js"
import * as StoreLayer from "../../src/StoreLayer.js"
import * as Sync from "../../src/Sync.js"

const [store = "", baseUrl = "", lease = "1500", rps = "20"] = process.argv.slice(2)
const credentials = FakeExchange.defaultCredentials

const program = Sync.run({
  account: StoreAccount.make(Redacted.make(credentials.apiKey), "crash"),
  lease: Number(lease),
  waitForLease: "30 seconds",
  onPage: (progress) => Effect.sync(() => void process.stdout.write(`page ${progress.kind} ${progress.pages}\n`))
}).pipe(
  Effect.provide(
    Layer.merge(
      NodeBillsApi.layer(
        {
          apiKey: Redacted.make(credentials.apiKey),
          secret: Redacted.make(credentials.secret),
          passphrase: Redacted.make(credentials.passphrase)
        },
        { config: { baseUrl, contractBaseUrl: baseUrl }, rateLimit: { limit: Number(rps) } }
      ),
      StoreLayer.layerFrom(store)
    )
  )
)

Effect.runPromiseExit(program).then((exit) => {
  if (exit._tag === "Success") {
    process.stdout.write(`done ${JSON.stringify(exit.value.map((s) => [s.kind, s.added, s.stored]))}\n`)
    process.exit(0)
  }
  process.stderr.write(`sync failed: ${String(exit.cause)}\n`)
  process.exit(1)
})
