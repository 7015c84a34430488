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

/** Per account, the intervals in which each runner passed it; an unfinished pass ends at `cut`. */
export const overlaps = (events: ReadonlyArray<PassEvent>, cut: ReadonlyMap<string, number>) => {
  const intervals = new Map<string, Array<{ runner: string; from: number; to: number }>>()
  const open = new Map<string, number>()
  for (const event of [...events].sort((a, b) => a.at - b.at)) {
    const key = `${event.runner} ${event.account}`
    if (event.event === "begins") open.set(key, event.at)
    else {
      const from = open.get(key)
      open.delete(key)
      if (from !== undefined) {
        const list = intervals.get(event.account) ?? []
        list.push({ runner: event.runner, from, to: event.at })
        intervals.set(event.account, list)
      }
    }
  }
  for (const [key, from] of open) {
    const [runner = "", account = ""] = key.split(" ")
    const list = intervals.get(account) ?? []
    list.push({ runner, from, to: cut.get(runner) ?? Number.POSITIVE_INFINITY })
    intervals.set(account, list)
  }
  const found: Array<string> = []
  for (const [account, list] of intervals) {
    for (const a of list) {
      for (const b of list) {
        if (a.runner < b.runner && a.from < b.to && b.from < a.to) {
          found.push(`${account}: ${a.runner} [${a.from}, ${a.to}] and ${b.runner} [${b.from}, ${b.to}]`)
        }
      }
    }
  }
  return found
}
