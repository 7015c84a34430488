/**
 * Waiting on processes and servers in real time: the fleet's process tests watch child
 * processes and servers that run on the wall clock, so they poll, with a deadline.
 */
import * as Effect from "effect/Effect"

/**
 * Succeeds once `predicate` holds, checked every 200 ms; dies with "timed out waiting for
 * <what>" after `timeoutMs`. A predicate that rejects (a server not up yet refuses the
 * connection) is a "not yet", as a false is; the timeout names its last rejection.
 */
export const until = (
  what: string,
  timeoutMs: number,
  predicate: () => Promise<boolean> | boolean
): Effect.Effect<void> =>
  Effect.promise(async () => {
    let rejected: unknown
    const holds = () =>
      Promise.resolve()
        .then(predicate)
        .catch((error: unknown) => {
          rejected = error
          return false
        })
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      if (await holds()) return undefined
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    return (await holds())
      ? undefined
      : `timed out waiting for ${what}${rejected === undefined ? "" : ` (last: ${String(rejected)})`}`
  }).pipe(Effect.flatMap((failed) => (failed === undefined ? Effect.void : Effect.dieMessage(failed))))
