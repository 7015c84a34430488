/**
 * What `bills export` runs once its flags are parsed: checks them, then exports over undici.
 * Loaded only by that subcommand (see ExportCommand.ts), so `bills --help` does not parse the
 * client, the schemas or undici.
 *
 * @since 0.1.0
 */
import type { BillsApi } from "@account-bills/core"
import type { Journal } from "@account-bills/books"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { NodeBillsApi } from "../NodeBillsApi.js"
import { type Account, accountsOf, type ExportAccount } from "./BillFormat.js"
import { exportBills } from "./ExportBills.js"
import { refusalAsFuturesRefused, skipRefusedContract, skippedLine } from "./FuturesRefused.js"
import {
  type ExportFlags,
  undocumentedBizType,
  validateExportFlags,
  validateJournalFlags,
  validateTaxFlags
} from "./ExportFlags.js"
import { warnAboveRateLimit } from "./Flags.js"
import { isJournalFormat, journalExport } from "./JournalExport.js"
import { importStore } from "./StoreModule.js"
import { isTaxFormat, type TaxFormat, taxExport } from "./TaxExport.js"

/**
 * The account a request's path reads, by the end of the path (the same on v2 and v3; the rest of
 * a URL is the base's): the contract paths first, since v2's `/capi/v2/account/bills` ends as
 * spot's `/api/v2/account/bills` does.
 */
const accountOfPath = (path: string): Account | undefined =>
  /\/capi\/v\d+\/account\/(income|bills)$/.test(path)
    ? "contract"
    : path.endsWith("/account/fundingBills")
      ? "funding"
      : path.endsWith("/account/bills")
        ? "spot"
        : undefined

/**
 * HttpClient over undici that counts the requests it sends, in all and per account, for the
 * progress lines.
 *
 * @since 0.1.0
 * @category layers
 */
export const countingUndici = Effect.map(
  Effect.all([Ref.make(0), Ref.make(0), Ref.make(0), Ref.make(0)]),
  ([funding, spot, contract, other]) => {
    const counters: Record<Account, Ref.Ref<number>> = { funding, spot, contract }
    return {
      requests: Effect.map(Effect.all([funding, spot, contract, other].map(Ref.get)), (each) =>
        each.reduce((sum, n) => sum + n, 0)
      ),
      requestsOf: (account: Account) => Ref.get(counters[account]),
      layer: Layer.effect(
        HttpClient.HttpClient,
        Effect.map(
          HttpClient.HttpClient,
          HttpClient.tapRequest((request) => {
            const account = accountOfPath(new URL(request.url, "http://relative").pathname)
            return Ref.update(account === undefined ? other : counters[account], (n) => n + 1)
          })
        )
      ).pipe(Layer.provide(NodeHttpClient.layerUndici))
    }
  }
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
          const warning =
            request.bizType === undefined ? undefined : undocumentedBizType(request.account, request.bizType)
          if (warning !== undefined) yield* Effect.sync(() => process.stderr.write(`${warning}\n`))
          if (Option.isSome(parsed.db)) {
            return yield* fromStoreRun(
              parsed,
              parsed.db.value,
              request,
              // From a store the accounts come in turn: the same output on every run.
              exportBills(request, { live: false, requests: () => Effect.succeed(0), inTurn: true })
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
      kinds: accountsOf(request.account),
      contractOptional: request.account === "all",
      window: { from: request.from, to: request.to },
      partial: parsed.partial,
      label: Option.getOrUndefined(parsed.label)
    })((coverage) =>
      Effect.zipRight(
        // Standard output is the data; what the store holds goes to stderr, one line per kind.
        Effect.sync(() => {
          for (const kind of coverage) process.stderr.write(`${describeCoverage(kind, parsed)}\n`)
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
    const api = NodeBillsApi.layerConfig({ rateLimit: { limit: maxRps } })
    // All accounts: a key the futures interface refuses is said in one line, and the export goes
    // on with the other two. The futures account alone: the refusal is the export's failure.
    return yield* request.account === "all"
      ? run.pipe(
          Effect.provide(
            skipRefusedContract((refused) =>
              Effect.sync(() => void process.stderr.write(`${skippedLine(refused)}\n`))
            ).pipe(Layer.provide(api))
          )
        )
      : run.pipe(refusalAsFuturesRefused, Effect.provide(api))
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
