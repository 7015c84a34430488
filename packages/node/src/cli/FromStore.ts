/**
 * Runs a `BillsApi` program against a store instead of the exchange. The stored account is the
 * one `--label` names, else the one of WEEX_API_KEY when it is set, else the store's only account. Loaded only when `--db` is
 * given. A read opens an existing store only, and first says what the store holds completely
 * of each kind it reads, and reads that: up to the covered end when no `--to` is given, so a
 * sync under way meanwhile (a fleet's pass) neither stops it nor mixes in. A read that asks for
 * more than that, or of a kind no sync has finished, stops (exit 4) unless `--partial`.
 *
 * @since 0.1.0
 */
import type { BillsApi } from "@account-bills/core"
import { type BillKind, BillsStore, type StoreCoverage, StoreBillsApi, StoreLayer } from "@account-bills/store"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/**
 * The store holds part of what the exchange served for a kind being read (a sync of it was
 * interrupted, or none has finished), and `--partial` was not given; the process exits with 4.
 *
 * @since 0.1.0
 * @category errors
 */
export class StoreIncomplete extends Schema.TaggedError<StoreIncomplete>("@account-bills/node/StoreIncomplete")(
  "StoreIncomplete",
  {
    target: Schema.String,
    /** One phrase per unfinished kind (see `describeCoverage`). */
    details: Schema.Array(Schema.String)
  }
) {
  override get message(): string {
    return `the store ${this.target} holds part of the history: ${this.details.join("; ")}; run bills sync to finish it, or add --partial to read what it holds`
  }
}

const iso = (millis: number) => new Date(millis).toISOString()

/**
 * What the store holds of one kind, in one phrase: the window it holds completely, and whether
 * a sync of it is under way or unfinished; `partial: false` (a read of what is held completely)
 * adds that the read stops at the covered end.
 *
 * @since 0.1.0
 * @category utils
 */
export const describeCoverage = (coverage: StoreCoverage, read?: { readonly partial: boolean }): string => {
  const held = `${coverage.bills} bill${coverage.bills === 1 ? "" : "s"}`
  if (coverage.coveredFrom === null || coverage.coveredTo === null) {
    return `${coverage.kind}: no sync into the store has finished (${held} held so far)`
  }
  // A first sync without --from reads all the exchange serves: its window starts at 0.
  const from = coverage.coveredFrom === 0 ? "" : `from ${iso(coverage.coveredFrom)} `
  const lost = coverage.agedOut.map((gap) => `${iso(gap.from)} to ${iso(gap.to)}`).join(", ")
  const window =
    coverage.agedOut.length === 0
      ? `${coverage.kind}: the store holds every bill ${from}up to ${iso(coverage.coveredTo)}`
      : `${coverage.kind}: the store holds every bill ${from}up to ${iso(coverage.coveredTo)} but for ${lost}, which aged out of the exchange's history before a sync read it`
  if (!coverage.unfinished) return `${window} (${held})`
  const stops = read?.partial === false ? `; this read stops at ${iso(coverage.coveredTo)}` : ""
  return `${window}; a newer sync is under way or unfinished (${held} held in all)${stops}`
}

/** Whether `window` meets one of the windows that aged out before a sync read them. */
const meetsAgedOut = (coverage: StoreCoverage, window: StoreRead["window"]): boolean =>
  coverage.agedOut.some((gap) => gap.from < (window.to ?? Number.POSITIVE_INFINITY) && (window.from ?? 0) < gap.to)

/**
 * What a read from a store takes: the kinds it reads, the window asked for (epoch ms, `to`
 * exclusive, as the flags give it), and whether a partly synced store may be read anyway
 * (`--partial`).
 *
 * @since 0.1.0
 * @category models
 */
export interface StoreRead {
  readonly kinds: ReadonlyArray<BillKind>
  readonly window: { readonly from?: number | undefined; readonly to?: number | undefined }
  readonly partial: boolean
  /** The stored account's label (`--label`), chosen over WEEX_API_KEY. */
  readonly label?: string | undefined
  /**
   * With all accounts: the futures account may never have been synced (its key refused): when
   * the store holds none of its bills and no walk of it, the read says so and goes on.
   */
  readonly contractOptional?: boolean | undefined
}

/** No walk of the kind has begun: no bills, no covered window. */
const neverSynced = (coverage: StoreCoverage): boolean => coverage.bills === 0 && coverage.coveredTo === null

/**
 * Whether a read of `window` from a store with `coverage` gets every bill the exchange served
 * there: never when it meets a window that aged out of the exchange's history before a sync read
 * it; else always when no sync of the kind is unfinished (the read is the store as of its last
 * sync), else only when the window lies inside the one the store holds completely. A bound not
 * given is the covered window's own (the store-backed client reads no further).
 *
 * @since 0.1.0
 * @category utils
 */
export const readsWhole = (coverage: StoreCoverage, window: StoreRead["window"]): boolean =>
  !meetsAgedOut(coverage, window) &&
  (!coverage.unfinished ||
    (coverage.coveredFrom !== null &&
      coverage.coveredTo !== null &&
      (window.from ?? coverage.coveredFrom) >= coverage.coveredFrom &&
      (window.to ?? coverage.coveredTo) <= coverage.coveredTo))

/**
 * Runs `use` with `BillsApi` answered from the store at `db`, given what the store holds of
 * each kind read, which is what the client reads (all it holds with `partial`); the store's failures, even those met while reading, fail it with their own
 * typed error. A store that does not exist fails with `StoreNotFound` and is not created.
 *
 * @since 0.1.0
 * @category utils
 */
export const fromStore =
  (db: string, read: StoreRead) =>
  <A, E>(use: (coverage: ReadonlyArray<StoreCoverage>) => Effect.Effect<A, E, BillsApi>) =>
    Effect.gen(function* () {
      const apiKey = Option.getOrUndefined(yield* Config.option(Config.redacted("WEEX_API_KEY")))
      return yield* Effect.gen(function* () {
        const store = yield* BillsStore
        const account = yield* StoreBillsApi.resolveAccount({ apiKey, label: read.label })
        const coverage = yield* Effect.forEach(read.kinds, (kind) => store.coverage(account, kind))
        const skipped = coverage.filter(
          (kind) => read.contractOptional === true && kind.kind === "contract" && neverSynced(kind)
        )
        if (skipped.length > 0) {
          yield* Effect.sync(() =>
            process.stderr.write(
              "contract: the store holds no futures account bills (no sync of it has run); reading funding and spot\n"
            )
          )
        }
        const unfinished = coverage.filter((kind) => !skipped.includes(kind) && !readsWhole(kind, read.window))
        if (unfinished.length > 0 && !read.partial) {
          return yield* new StoreIncomplete({
            target: store.target,
            details: unfinished.map((kind) => describeCoverage(kind))
          })
        }
        // The client reads up to the ends just read, whatever a sync commits meanwhile; a kind
        // left out above holds nothing, so it reads as an empty covered window.
        const heldWindows = coverage.map((kind) =>
          skipped.includes(kind) ? { ...kind, coveredFrom: 0, coveredTo: 0 } : kind
        )
        const api = StoreBillsApi.layer(account, { partial: read.partial, coverage: heldWindows })
        const said = coverage.filter((kind) => !skipped.includes(kind))
        return yield* StoreBillsApi.catchStoreDefects(Effect.provide(use(said), api))
      }).pipe(Effect.provide(StoreLayer.layerFrom(db, { create: false })))
    })
