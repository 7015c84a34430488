/**
 * What `bills export` runs once its flags are parsed: checks them, then exports over undici.
 * Loaded only by that subcommand (see ExportCommand.ts), so `bills --help` does not parse the
 * client, the schemas or undici.
 *
 * @since 0.1.0
 */
import type { BillsApi, Journal } from "@account-bills/core"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { NodeBillsApi } from "../NodeBillsApi.js"
import { allAccounts } from "./AccountsLedger.js"
import type { Account, ExportAccount } from "./BillFormat.js"
import { exportBills } from "./ExportBills.js"
import { type ExportFlags, validateExportFlags, validateJournalFlags, validateTaxFlags } from "./ExportFlags.js"
import { warnAboveRateLimit } from "./Flags.js"
import { isJournalFormat, journalExport } from "./JournalExport.js"
import { importStore } from "./StoreModule.js"
import { isTaxFormat, type TaxFormat, taxExport } from "./TaxExport.js"

/** The ends of the two operations' paths (the same on v2 and v3): the rest of a URL is the base's. */
const fundingPath = "/account/fundingBills"
const spotPath = "/account/bills"

/**
 * HttpClient over undici that counts the requests it sends, in all and per account, for the
 * progress lines.
 *
 * @since 0.1.0
 * @category layers
 */
export const countingUndici = Effect.map(
  Effect.all([Ref.make(0), Ref.make(0), Ref.make(0)]),
  ([funding, spot, other]) => ({
    requests: Effect.map(Effect.all([Ref.get(funding), Ref.get(spot), Ref.get(other)]), ([a, b, c]) => a + b + c),
    requestsOf: (account: Account) => Ref.get(account === "funding" ? funding : spot),
    layer: Layer.effect(
      HttpClient.HttpClient,
      Effect.map(
        HttpClient.HttpClient,
        HttpClient.tapRequest((request) => {
          const path = new URL(request.url, "http://relative").pathname
          return Ref.update(path.endsWith(fundingPath) ? funding : path.endsWith(spotPath) ? spot : other, (n) => n + 1)
        })
      )
    ).pipe(Layer.provide(NodeHttpClient.layerUndici))
  })
)

/**
 * Runs `bills export` with the parsed flags: from the exchange over undici, or with `--db` from a
 * store, offline (the store's code is loaded only then).
 *
 * @since 0.1.0
 * @category commands
 */
export const runExport = (parsed: ExportFlags) => {
  const format = parsed.format
  return isTaxFormat(format)
    ? Effect.asVoid(runTaxExport(parsed, format))
    : isJournalFormat(format)
      ? Effect.asVoid(runJournalExport(parsed, format))
      : Effect.gen(function* () {
          const { request, maxRps } = yield* validateExportFlags({ ...parsed, format })
          if (Option.isSome(parsed.db)) {
            return yield* fromStoreRun(
              parsed,
              parsed.db.value,
              request,
              exportBills(request, { live: false, requests: () => Effect.succeed(0) })
            )
          }
          yield* warnAboveRateLimit(maxRps)
          const http = yield* countingUndici
          yield* exportBills(request, { live: process.stderr.isTTY === true, requests: http.requestsOf }).pipe(
            Effect.provide(NodeBillsApi.layerConfig({ rateLimit: { limit: maxRps }, httpClient: http.layer }))
          )
        }).pipe(Effect.asVoid)
}

type Window = { readonly account: ExportAccount; readonly from?: number | undefined; readonly to?: number | undefined }

/**
 * Runs an export offline on the store at `db` (the store's code is loaded only then), which must
 * hold the window unless `--partial`.
 */
const fromStoreRun = <A, E>(parsed: ExportFlags, db: string, request: Window, run: Effect.Effect<A, E, BillsApi>) =>
  Effect.gen(function* () {
    const { describeCoverage, fromStore } = yield* importStore("export --db", () => import("./FromStore.js"))
    return yield* fromStore(db, {
      kinds: request.account === "all" ? allAccounts : [request.account],
      window: { from: request.from, to: request.to },
      partial: parsed.partial,
      label: Option.getOrUndefined(parsed.label)
    })((coverage) =>
      Effect.zipRight(
        // Standard output is the data; what the store holds goes to stderr, one line per kind.
        Effect.sync(() => {
          for (const kind of coverage) process.stderr.write(`${describeCoverage(kind)}\n`)
        }),
        run
      )
    )
  })

/**
 * Runs an export built on events (a tax tool's file, a journal) on the accounts' ledger: from a
 * store (which must hold the whole window, as for any export) or live.
 */
const onLedger = <A, E>(parsed: ExportFlags, request: Window, maxRps: number, run: Effect.Effect<A, E, BillsApi>) =>
  Effect.gen(function* () {
    if (Option.isSome(parsed.db)) return yield* fromStoreRun(parsed, parsed.db.value, request, run)
    yield* warnAboveRateLimit(maxRps)
    return yield* run.pipe(Effect.provide(NodeBillsApi.layerConfig({ rateLimit: { limit: maxRps } })))
  })

/**
 * `bills export --format koinly|cointracking|bittytax`: the events of the accounts' ledger in the
 * tool's layout.
 */
const runTaxExport = (parsed: ExportFlags, format: TaxFormat) =>
  Effect.flatMap(validateTaxFlags(parsed, format), ({ maxRps, request }) =>
    onLedger(parsed, request, maxRps, taxExport(request))
  )

/**
 * `bills export --format hledger|ledger|beancount`: the events of the accounts' ledger as a
 * journal for the tool.
 */
const runJournalExport = (parsed: ExportFlags, format: Journal.JournalFormat) =>
  Effect.flatMap(validateJournalFlags(parsed, format), ({ maxRps, request }) =>
    onLedger(parsed, request, maxRps, journalExport(request))
  )
