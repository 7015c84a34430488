/**
 * `bills export`: the flags of DESIGN section 6, wired to the export job.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Option from "effect/Option"
import { NodeBillsApi } from "../NodeBillsApi.js"
import { exportBills } from "./ExportBills.js"
import { validateExportFlags } from "./ExportFlags.js"
import { dbFlag, fromStore } from "./StoreFlag.js"
import { windowFlags } from "./WindowFlags.js"

const flags = {
  account: Options.choice("account", ["funding", "spot"]).pipe(Options.withDescription("which account's bills")),
  ...windowFlags,
  bizType: Options.text("biz-type").pipe(Options.withDescription("only this business type"), Options.optional),
  format: Options.choice("format", ["ndjson", "csv"]).pipe(Options.withDefault("ndjson" as const)),
  out: Options.text("out").pipe(Options.withDescription("write to this file instead of stdout"), Options.optional),
  maxRps: Options.integer("max-rps").pipe(
    Options.withDescription("requests per second per operation"),
    Options.withDefault(10)
  ),
  db: dbFlag
}

/**
 * HttpClient over undici that counts the requests it sends, for the progress line.
 *
 * @since 0.1.0
 */
export const countingUndici = Effect.map(Ref.make(0), (count) => ({
  requests: Ref.get(count),
  layer: Layer.effect(
    HttpClient.HttpClient,
    Effect.map(
      HttpClient.HttpClient,
      HttpClient.tapRequest(() => Ref.update(count, (n) => n + 1))
    )
  ).pipe(Layer.provide(NodeHttpClient.layerUndici))
}))

/**
 * The `export` subcommand.
 *
 * @since 0.1.0
 */
export const exportCommand = Command.make("export", flags, (parsed) =>
  Effect.gen(function* () {
    const { request, maxRps } = yield* validateExportFlags(parsed)
    if (Option.isSome(parsed.db)) {
      return yield* fromStore(parsed.db.value)(exportBills(request, { live: false, requests: Effect.succeed(0) }))
    }
    const http = yield* countingUndici
    yield* exportBills(request, { live: process.stderr.isTTY === true, requests: http.requests }).pipe(
      Effect.provide(NodeBillsApi.layerConfig({ rateLimit: { limit: maxRps }, httpClient: http.layer }))
    )
  })
).pipe(Command.withDescription("export one account's bills as NDJSON or CSV"))
