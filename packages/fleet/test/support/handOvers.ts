/**
 * What a hand-over of an account from one runner to another looked like from the exchange:
 * read from the runners' pass brackets and the fleet exchange's log.
 */
import type { FleetRequest } from "./FleetExchange.js"
import type { PassEvent } from "./runnerProcess.js"

/**
 * Per hand-over (an account's consecutive passes on different runners), the time from the old
 * runner's last request for the account to the new runner's first, by the senders' own stamps.
 * The new runner's pass begins after its wait, the old runner's requests all before it.
 */
export const handOvers = (
  events: ReadonlyArray<PassEvent>,
  log: ReadonlyArray<FleetRequest>,
  keyOf: (account: string) => string
) => {
  const found: Array<{ readonly account: string; readonly from: string; readonly to: string; readonly gap: number }> =
    []
  const begins = [...events].filter((event) => event.event === "begins").sort((a, b) => a.at - b.at)
  for (const account of new Set(begins.map((event) => event.account))) {
    const passes = begins.filter((event) => event.account === account)
    const sent = log
      .filter((request) => request.key === keyOf(account) && request.operation !== undefined)
      .flatMap((request) => (request.signedAt === undefined ? [] : [request.signedAt]))
    for (const [i, pass] of passes.entries()) {
      const before = passes[i - 1]
      if (before === undefined || before.runner === pass.runner) continue
      const last = Math.max(...sent.filter((at) => at < pass.at))
      const first = Math.min(...sent.filter((at) => at >= pass.at))
      if (Number.isFinite(last) && Number.isFinite(first)) {
        found.push({ account, from: before.runner, to: pass.runner, gap: first - last })
      }
    }
  }
  return found
}
