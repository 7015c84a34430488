/**
 * A steady pass's interval stretched while its address's budget is short. An account whose
 * history is current costs a request per kind and pass, and many current accounts at a short
 * interval ask an address for far more than its budget (300 accounts every 3 s: 200 requests a
 * second of 10): their passes then only wait in line for grants, beside the first syncs of new
 * accounts, and take the budget (and the runners' CPU) those need. So a pass whose kinds found
 * nothing new and whose grants were slow schedules the account's next reading of them twice as
 * far off, up to `maxStretch` intervals; one whose grants came at once halves it again, and a
 * pass that found bills, failed or was not a steady one puts it back to one interval.
 *
 * Slow: a grant that took longer than `shortGrantMillis` from asked to given. The budget answers
 * a grant within a round trip to Redis while it has room; longer means it made the request wait
 * for the window, or the runner was too busy to take its grant at once (CPU-bound: the same
 * steady passes then take the CPU the first syncs need).
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { AddressBudgetShape } from "../AddressBudget.js"

/**
 * The most an interval is stretched: a current account is read at least every `maxStretch`
 * intervals after its last pass ended (8 minutes at the default 60 s interval).
 */
export const maxStretch = 8

/** A grant slower than this found the budget short. */
export const shortGrantMillis = 100

/** Grants of one pass, watched for a slow one. */
export interface Watch {
  short: boolean
}

type WithGrant = AddressBudgetShape["withGrant"]

/** `withGrant`, noting in `watch` a grant that took longer than `shortGrantMillis`. */
export const watched =
  (withGrant: WithGrant, watch: Watch): WithGrant =>
  (operation, address) =>
  (request) =>
    Effect.flatMap(Clock.currentTimeMillis, (asked) =>
      withGrant(
        operation,
        address
      )(
        Effect.zipRight(
          Effect.flatMap(Clock.currentTimeMillis, (given) =>
            Effect.sync(() => {
              if (given - asked > shortGrantMillis) watch.short = true
            })
          ),
          request
        )
      )
    )

/**
 * The next stretch of an account's interval after a pass: `steady` when it walked every kind it
 * was due to read to its end, found nothing new and failed nowhere.
 */
export const next = (stretch: number, steady: boolean, short: boolean): number =>
  !steady ? 1 : short ? Math.min(stretch * 2, maxStretch) : Math.max(1, stretch / 2)
