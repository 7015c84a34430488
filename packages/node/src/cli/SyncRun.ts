/**
 * What `bills sync` runs once its flags are parsed: syncs the account's bills into the store,
 * every kind's progress on its own line on stderr, one line per kind at the end, and on an
 * interrupt what each kind kept.
 *
 * @since 0.1.0
 */
import { BillsApi } from "@account-bills/core"
import { StoreAccount, StoreLayer, StoreTarget, Sync } from "@account-bills/store"
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { NodeBillsApi } from "../NodeBillsApi.js"
import { type Account, accountsOf } from "./BillFormat.js"
import { countingUndici } from "./ExportRun.js"
import { warnAboveRateLimit } from "./Flags.js"
import { refusalAsFuturesRefused, skippedLine } from "./FuturesRefused.js"
import { fundingProgress, type PageProgress, servedFromNote, spotProgress } from "./PageProgress.js"
import { count, makeProgress, minute } from "./Progress.js"
import type { SyncFlags } from "./SyncCommand.js"

interface KindState {
  /** The latest page read (it may be ahead of what is committed). */
  progress: PageProgress
  read: number
  /** Pages committed, bills the store did not hold before. */
  committed: number
  added: number
  done: boolean
  noted: boolean
}

const resumeHint = "bills: interrupted; what was kept stays kept: run the same command again to resume where it stopped"

/**
 * Runs `bills sync` with the parsed flags.
 *
 * @since 0.1.0
 * @category commands
 */
export const runSync = (parsed: SyncFlags) =>
  Effect.gen(function* () {
    yield* warnAboveRateLimit(parsed.maxRps)
    const apiKey = yield* Config.redacted("WEEX_API_KEY")
    const http = yield* countingUndici
    const kinds = accountsOf(parsed.account)
    const progress = yield* makeProgress(kinds, process.stderr.isTTY === true)
    const states = new Map<Account, KindState>(
      kinds.map((kind) => [
        kind,
        {
          progress: { requests: 0, share: 0, reached: undefined, servedFrom: undefined },
          read: 0,
          committed: 0,
          added: 0,
          done: false,
          noted: false
        }
      ])
    )
    const stateOf = (kind: Account) => states.get(kind) as KindState
    // The pages' progress is seen on their way into Sync, by a BillsApi that taps its walks.
    const read = (kind: Account, done: boolean, page: PageProgress) =>
      Effect.suspend(() => {
        const state = stateOf(kind)
        state.progress = page
        state.read += 1
        state.done = done
        if (page.servedFrom === undefined || state.noted) return Effect.void
        state.noted = true
        return progress.note(servedFromNote(kind, page.servedFrom))
      })
    const tracked = Layer.effect(
      BillsApi,
      Effect.map(BillsApi, (api) => ({
        ...api,
        streamFundingPages: (query) =>
          Stream.tap(api.streamFundingPages(query), (page) => read("funding", page.cursor.done, fundingProgress(page))),
        streamSpotPages: (query) =>
          Stream.tap(api.streamSpotPages(query), (page) => read("spot", page.cursor.done, spotProgress(page))),
        streamContractPages: (query) =>
          Stream.tap(api.streamContractPages(query), (page) => read("contract", page.cursor.done, spotProgress(page)))
      }))
    ).pipe(Layer.provide(NodeBillsApi.layerConfig({ rateLimit: { limit: parsed.maxRps }, httpClient: http.layer })))
    const account = StoreAccount.make(apiKey, Option.getOrUndefined(parsed.label))
    // Each kind on its own, so that with all three a key the futures interface refuses is said
    // in one line and the other two are kept; with the futures account alone, it fails.
    const syncKind = (kind: Account) =>
      Sync.run({
        account,
        kinds: [kind],
        from: Option.getOrUndefined(parsed.from),
        overlap: Duration.seconds(parsed.overlap),
        onPage: (committed) =>
          Effect.suspend(() => {
            const state = stateOf(committed.kind)
            state.committed = committed.pages
            state.added = committed.added
            return progress.update(committed.kind, {
              bills: committed.added,
              pages: committed.pages,
              requests: committed.requests,
              share: state.progress.share,
              reached: state.progress.reached
            })
          })
      }).pipe(refusalAsFuturesRefused)
    const summaries = yield* Effect.forEach(
      kinds,
      (kind) =>
        parsed.account === "all" && kind === "contract"
          ? Effect.catchTag(syncKind(kind), "FuturesRefused", (refused) =>
              Effect.as(progress.end(kind, skippedLine(refused)), [])
            )
          : syncKind(kind),
      { concurrency: "unbounded" }
    ).pipe(
      Effect.map((each) => each.flat()),
      Effect.provide(
        Layer.merge(tracked, StoreLayer.layerFrom(Option.getOrElse(parsed.db, () => StoreTarget.defaultPath)))
      ),
      Effect.onInterrupt(() =>
        progress.interrupted((kind) => {
          const state = stateOf(kind as Account)
          const complete = state.done && state.committed === state.read
          const reached = state.progress.reached === undefined ? "" : `, reached ${minute(state.progress.reached)}`
          return `${kind}: ${complete ? "done" : "interrupted"}, ${count(state.added, "new bill")} kept${complete ? "" : reached}`
        }, resumeHint)
      )
    )
    for (const summary of summaries) {
      yield* progress.end(
        summary.kind,
        `${summary.kind}: ${count(summary.added, "new bill")} in ${count(summary.requests, "request")}${summary.resumed ? ` (resumed an interrupted sync, whose earlier runs sent ${count(summary.earlierRequests, "request")})` : ""}; ${summary.stored} kept` +
          (summary.agedOut === undefined
            ? ""
            : `; the exchange's history from ${new Date(summary.agedOut.from).toISOString()} to ${new Date(summary.agedOut.to).toISOString()} aged out before this sync could read it: the store does not hold it`)
      )
    }
    return summaries
  })
