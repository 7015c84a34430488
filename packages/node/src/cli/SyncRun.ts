/**
 * What `bills sync` runs once its flags are parsed: syncs the account's bills into the store,
 * progress on stderr, one line per account at the end.
 *
 * @since 0.1.0
 */
import { StoreAccount, StoreLayer, StoreTarget, Sync } from "@account-bills/store"
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { NodeBillsApi } from "../NodeBillsApi.js"
import { countingUndici } from "./ExportRun.js"
import { warnAboveRateLimit } from "./Flags.js"
import type { SyncFlags } from "./SyncCommand.js"

/**
 * Runs `bills sync` with the parsed flags.
 *
 * @since 0.1.0
 * @category commands
 */
export const runSync = (parsed: SyncFlags) =>
  Effect.gen(function* () {
    const from = Option.getOrUndefined(parsed.from)
    yield* warnAboveRateLimit(parsed.maxRps)
    const apiKey = yield* Config.redacted("WEEX_API_KEY")
    const http = yield* countingUndici
    const summaries = yield* Sync.run({
      account: StoreAccount.make(apiKey, Option.getOrUndefined(parsed.label)),
      kinds: parsed.account === "all" ? ["funding", "spot"] : [parsed.account],
      from,
      overlap: Duration.seconds(parsed.overlap),
      onPage: (progress) =>
        process.stderr.isTTY === true
          ? Effect.sync(() =>
              process.stderr.write(`\r${progress.kind}: ${progress.pages} pages, ${progress.added} new bills   `)
            )
          : Effect.void
    }).pipe(
      Effect.provide(
        Layer.merge(
          NodeBillsApi.layerConfig({ rateLimit: { limit: parsed.maxRps }, httpClient: http.layer }),
          StoreLayer.layerFrom(Option.getOrElse(parsed.db, () => StoreTarget.defaultPath))
        )
      )
    )
    if (process.stderr.isTTY === true) process.stderr.write("\n")
    for (const summary of summaries) {
      process.stderr.write(
        `${summary.kind}: ${summary.added} new bills in ${summary.requests} requests${summary.resumed ? " (resumed an interrupted sync)" : ""}; ${summary.stored} kept\n`
      )
    }
    return summaries
  })
