/**
 * A journal plan written in each tool's syntax: hledger and Ledger share one (with a few
 * directives apart), Beancount has its own. Every account and commodity is declared before use,
 * so `hledger check --strict`, `ledger --pedantic` and `bean-check` accept the file.
 */
import type * as BigDecimal from "effect/BigDecimal"
import * as DateTime from "effect/DateTime"
import type { EventAccount } from "../LedgerEvent.js"
import { Amount } from "@account-bills/core"
import { type Commodity, commodities, type NamedAccount, type Tool } from "./journalNames.js"
import { dateOf, type Plan, type Posting, type Target } from "./journalPlan.js"

/**
 * The names a journal books against: the parent of each exchange account's coins, and the
 * named accounts.
 */
export interface Names {
  readonly assets: Readonly<Record<EventAccount, string>>
  readonly named: Readonly<Record<NamedAccount, string>>
}

const tags = ["bills", "time", "kind", "biztype", "suspense"] as const

const header = (tool: Tool) =>
  `${tool === "beancount" ? ";;" : ";"} Written by account-bills from the exchange's bills: one transaction per event, the bill ids on each, and the balances the exchange reported asserted. Times are UTC.\n`

const timeOf = (millis: number) => DateTime.formatIso(DateTime.unsafeMake(millis))

/** Writes the plan for hledger or Ledger. */
const ledgerLike = (tool: "hledger" | "ledger", plan: Plan, names: Names): string => {
  const symbols = commodities(tool, plan.coins)
  const symbolOf = (coin: string) => symbols.get(coin) as Commodity
  const accountOf = (target: Target) =>
    target._tag === "Asset"
      ? `${names.assets[target.account]}:${symbolOf(target.coin).component}`
      : names.named[target.name]
  const amount = (value: BigDecimal.BigDecimal, coin: string) => `${Amount.formatPlain(value)} ${symbolOf(coin).text}`
  const out: Array<string> = [header(tool), "\n"]
  for (const { account, coin } of plan.assets) out.push(`account ${accountOf({ _tag: "Asset", account, coin })}\n`)
  for (const name of [...plan.named].sort()) out.push(`account ${names.named[name]}\n`)
  out.push("\n")
  for (const coin of [...plan.coins].sort()) {
    const { symbol, text } = symbolOf(coin)
    // Ledger's `note` takes the rest of the line and refuses an empty one.
    if (tool === "ledger")
      out.push(`commodity ${text}\n${symbol === coin ? "" : `    note ${coin === "" ? '""' : coin}\n`}`)
    else out.push(`commodity ${text}${symbol === coin ? "" : `  ; name: ${coin}`}\n`)
  }
  if (tool === "ledger") for (const tag of tags) out.push(`tag ${tag}\n`)
  const line = (p: Posting) =>
    `    ${accountOf(p.target)}  ${amount(p.amount, p.coin)}${p.cost === undefined ? "" : ` @@ ${amount(p.cost.amount, p.cost.coin)}`}${p.assert === undefined ? "" : ` = ${amount(p.assert, p.coin)}`}\n`
  for (const t of plan.transactions) {
    out.push(
      `\n${dateOf(t.millis)} ${t.kind} | ${t.narration}\n`,
      `    ; time: ${timeOf(t.millis)}\n`,
      t.billIds.length === 0 ? "" : `    ; bills: ${t.billIds.join(" ")}\n`,
      t.bizTypes.length === 0 ? "" : `    ; biztype: ${t.bizTypes.join(" ")}\n`,
      t.suspense === undefined ? "" : `    ; suspense: ${t.suspense}\n`
    )
    for (const p of t.postings) out.push(line(p))
  }
  return out.join("")
}

const quoted = (text: string) => `"${text.replace(/["\\]/g, (c) => `\\${c}`)}"`

/** Writes the plan for Beancount. */
const beancount = (plan: Plan, names: Names): string => {
  const symbols = commodities("beancount", plan.coins)
  const symbolOf = (coin: string) => symbols.get(coin) as Commodity
  const accountOf = (target: Target) =>
    target._tag === "Asset"
      ? `${names.assets[target.account]}:${symbolOf(target.coin).component}`
      : names.named[target.name]
  // Every amount of a coin with all the decimals the coin has in the file: Beancount infers a
  // transaction's tolerance from them, which absorbs the rounding of its own division of an
  // `@@` total into a unit price (28 digits) and nothing larger than half the coin's last place.
  const amount = (value: BigDecimal.BigDecimal, coin: string) =>
    `${Amount.formatFixed(value, plan.scales.get(coin) ?? 0)} ${symbolOf(coin).text}`
  const first = plan.transactions[0]
  const out: Array<string> = [header("beancount")]
  if (first === undefined) return out.join("")
  const opened = dateOf(first.millis)
  out.push("\n")
  for (const coin of [...plan.coins].sort()) {
    out.push(`${opened} commodity ${symbolOf(coin).symbol}\n  name: ${quoted(coin)}\n`)
  }
  out.push("\n")
  for (const { account, coin } of plan.assets) {
    out.push(`${opened} open ${accountOf({ _tag: "Asset", account, coin })} ${symbolOf(coin).symbol}\n`)
  }
  for (const name of [...plan.named].sort()) out.push(`${opened} open ${names.named[name]}\n`)
  for (const t of plan.transactions) {
    out.push(
      `\n${dateOf(t.millis)} ${t.suspense === undefined ? "*" : "!"} ${quoted(`${t.kind}: ${t.narration}`)}\n`,
      `  time: ${quoted(timeOf(t.millis))}\n`,
      t.billIds.length === 0 ? "" : `  bills: ${quoted(t.billIds.join(" "))}\n`,
      t.bizTypes.length === 0 ? "" : `  biztype: ${quoted(t.bizTypes.join(" "))}\n`,
      t.suspense === undefined ? "" : `  suspense: ${quoted(t.suspense)}\n`
    )
    for (const p of t.postings) {
      out.push(
        `  ${accountOf(p.target)}  ${amount(p.amount, p.coin)}${p.cost === undefined ? "" : ` @@ ${amount(p.cost.amount, p.cost.coin)}`}\n`
      )
    }
    if (t.endOfDay.length > 0) {
      // A balance holds at the start of its day: the end of this one is asserted on the next,
      // with no tolerance (`~ 0`): by default Beancount lets a balance off by one unit of its
      // last decimal place pass.
      const next = dateOf(t.millis + 86_400_000)
      out.push("\n")
      for (const b of t.endOfDay) {
        out.push(
          `${next} balance ${accountOf({ _tag: "Asset", account: b.account, coin: b.coin })}  ${Amount.formatFixed(b.amount, plan.scales.get(b.coin) ?? 0)} ~ 0 ${symbolOf(b.coin).text}\n`
        )
      }
    }
  }
  return out.join("")
}

/**
 * The plan in `tool`'s syntax.
 */
export const render = (tool: Tool, plan: Plan, names: Names): string =>
  tool === "beancount" ? beancount(plan, names) : ledgerLike(tool, plan, names)
