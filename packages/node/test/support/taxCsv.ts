/**
 * Reads a tax tool's file with nothing of ours: the tests' own CSV parser (exportCheck.ts),
 * exact decimal sums as scaled integers, and what each row does to the balances in each tool's
 * documented convention.
 */
import { parseCsv } from "./exportCheck.js"

export { parseCsv }

/** Decimal strings as scaled integers: exact sums without any float. */
const scale = 30
export const toUnits = (text: string): bigint => {
  if (text === "") return 0n
  const negative = text.startsWith("-")
  const [whole = "0", fraction = ""] = (negative ? text.slice(1) : text).split(".")
  const units = BigInt(whole) * 10n ** BigInt(scale) + BigInt(fraction.padEnd(scale, "0") || "0")
  return negative ? -units : units
}

/** The rows of a file as records keyed by the header's names. */
export const records = (text: string): Array<Record<string, string>> => {
  const [header, ...rows] = parseCsv(text)
  return rows.map((cells) => Object.fromEntries((header ?? []).map((name, i) => [name, cells[i] ?? ""])))
}

export const add = (sums: Map<string, bigint>, coin: string, units: bigint) => {
  if (coin !== "") sums.set(coin, (sums.get(coin) ?? 0n) + units)
}

/** What each row does to the balances, in each tool's documented convention. */
export const conventions: Record<string, (row: Record<string, string>, sums: Map<string, bigint>) => void> = {
  // Koinly: + received, - sent, - fee.
  koinly: (row, sums) => {
    add(sums, row["Received Currency"] as string, toUnits(row["Received Amount"] as string))
    add(sums, row["Sent Currency"] as string, -toUnits(row["Sent Amount"] as string))
    add(sums, row["Fee Currency"] as string, -toUnits(row["Fee Amount"] as string))
  },
  // CoinTracking: the amounts include the fee; the fee column only tells.
  cointracking: (row, sums) => {
    add(sums, row["Buy Currency"] as string, toUnits(row["Buy Amount"] as string))
    add(sums, row["Sell Currency"] as string, -toUnits(row["Sell Amount"] as string))
  },
  // BittyTax: + buy, - sell, - fee.
  bittytax: (row, sums) => {
    add(sums, row["Buy Asset"] as string, toUnits(row["Buy Quantity"] as string))
    add(sums, row["Sell Asset"] as string, -toUnits(row["Sell Quantity"] as string))
    add(sums, row["Fee Asset"] as string, -toUnits(row["Fee Quantity"] as string))
  }
}
