/**
 * What `bills export` runs once its flags are parsed: checks them, then exports over undici.
 * Loaded only by that subcommand (see ExportCommand.ts), so `bills --help` does not parse the
 * client, the schemas or undici.
 *
 * @since 0.1.0
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import type { BillsApi } from "@account-bills/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { NodeBillsApi } from "../NodeBillsApi.js"
import { type Account, accountsOf, type ExportAccount } from "./BillFormat.js"
import { exportBills } from "./ExportBills.js"
import { type ExportFlags, validateExportFlags, validateTaxFlags } from "./ExportFlags.js"
import { warnAboveRateLimit } from "./Flags.js"
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
 * Runs `use` on a store's bills (`--db`), which must hold the whole window (as for any export),
 * saying on stderr what the store holds, one line per kind.
 */
const fromStoreExport = <A, E>(
  parsed: ExportFlags,
  account: ExportAccount,
  window: { readonly from?: number | undefined; readonly to?: number | undefined },
  db: string,
  use: Effect.Effect<A, E, BillsApi>
) =>
  Effect.gen(function* () {
    const { describeCoverage, fromStore } = yield* importStore("export --db", () => import("./FromStore.js"))
    return yield* fromStore(db, {
      kinds: accountsOf(account),
      contractOptional: account === "all",
      window: { from: window.from, to: window.to },
      partial: parsed.partial,
      label: Option.getOrUndefined(parsed.label)
    })((coverage) =>
      Effect.zipRight(
        // Standard output is the bills; what the store holds goes to stderr, one line per kind.
        Effect.sync(() => {
          for (const kind of coverage) process.stderr.write(`${describeCoverage(kind, parsed)}\n`)
        }),
        use
      )
    )
  })

/**
 * Runs `bills export` with the parsed flags: from the exchange over undici, or with `--db` from a
 * store, offline (the store's code is loaded only then).
 *
 * @since 0.1.0
 * @category commands
 */
export const runExport = (parsed: ExportFlags) =>
  Effect.gen(function* () {
    const format = parsed.format
    if (isTaxFormat(format)) {
      return yield* runTaxExport(parsed, format)
    }
    const { request, maxRps } = yield* validateExportFlags({ ...parsed, format })
    if (Option.isSome(parsed.db)) {
      return yield* fromStoreExport(
        parsed,
        request.account,
        request,
        parsed.db.value,
        exportBills(request, { live: false, requests: () => Effect.succeed(0) })
      )
    }
    yield* warnAboveRateLimit(maxRps)
    const http = yield* countingUndici
    return yield* exportBills(request, { live: process.stderr.isTTY === true, requests: http.requestsOf }).pipe(
      Effect.provide(NodeBillsApi.layerConfig({ rateLimit: { limit: maxRps }, httpClient: http.layer }))
    )
  }).pipe(Effect.asVoid)

/**
 * `bills export --format koinly|cointracking|bittytax`: the events of the accounts' ledger in the
 * tool's layout, from a store (which must hold the whole window, as for any export) or live.
 */
const runTaxExport = (parsed: ExportFlags, format: TaxFormat) =>
  Effect.gen(function* () {
    const { maxRps, request } = yield* validateTaxFlags(parsed, format)
    if (Option.isSome(parsed.db)) {
      return yield* fromStoreExport(parsed, request.account, request, parsed.db.value, taxExport(request))
    }
    yield* warnAboveRateLimit(maxRps)
    return yield* taxExport(request).pipe(Effect.provide(NodeBillsApi.layerConfig({ rateLimit: { limit: maxRps } })))
  })
