/**
 * Several egress addresses: three `bills fleet run` processes, each told to send from three
 * loopback addresses, share one Redis budget per address that is below what the accounts could
 * use together. The loopback fleet exchange limits each source address apart (as the exchange
 * counts IP limits apart). It must see requests from all three addresses, each account from one
 * address only, no address over its limit in any window, and every account's store exact.
 */
import { BillsStore } from "@account-bills/store"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { seededFleet } from "./support/seededFleet.js"
import { freePorts } from "./support/ports.js"
import { bills, scopedBills } from "./support/runnerProcess.js"
import { postgresUrl, redisUrl, testKey } from "./support/services.js"
import { until } from "./support/until.js"

const accounts = 12
const perAddress = 4
const addresses = ["127.0.0.2", "127.0.0.3", "127.0.0.4"]
const day = 86_400_000

const credentialsOf = (i: number) => ({ apiKey: `egress-key-${i}`, secret: `secret-${i}`, passphrase: `pass-${i}` })
const labelOf = (i: number) => `egress-${String(i).padStart(2, "0")}`

/** The most arrivals of one address and operation in any window of `windowMillis`. */
const busiestWindow = (ats: ReadonlyArray<number>, windowMillis: number) => {
  const sorted = [...ats].sort((a, b) => a - b)
  let most = 0
  let from = 0
  for (let to = 0; to < sorted.length; to++) {
    while ((sorted[to] as number) - (sorted[from] as number) >= windowMillis) from++
    most = Math.max(most, to - from + 1)
  }
  return most
}

describe.skipIf(postgresUrl === undefined || redisUrl === undefined)("a fleet on several egress addresses", () => {
  it.live(
    `3 runners, ${accounts} accounts, addresses ${addresses.join(", ")} with a budget of ${perAddress}/s each`,
    () =>
      Effect.gen(function* () {
        const { db, exchange, database, current } = yield* seededFleet({
          accounts,
          labelOf,
          credentialsOf,
          perAddress: { limit: perAddress, windowMillis: 1000 },
          exchangeOf: (i, now) => ({
            generate: {
              seed: 300 + i,
              funding: 120 + 10 * i,
              spot: 200 + 9 * i,
              startMillis: now - 5 * day,
              endMillis: now - 60_000
            }
          })
        })
        const ports = yield* freePorts(3)
        yield* Effect.forEach([0, 1, 2], (i) =>
          scopedBills(
            `e${i}`,
            [
              "run",
              "--db",
              db,
              "--redis",
              redisUrl ?? "",
              "--port",
              String(ports[i]),
              "--interval",
              "2s",
              "--ip-rps",
              String(perAddress),
              "--local-address",
              addresses.join(",")
            ],
            { BILLS_FLEET_KEY: testKey, WEEX_BASE_URL: exchange.url }
          )
        )

        yield* until("every account brought current", 150_000, () => Effect.runPromise(current(true)))

        yield* Effect.gen(function* () {
          const store = yield* BillsStore
          for (let i = 0; i < accounts; i++) {
            const fake = exchange.exchanges.get(credentialsOf(i).apiKey)
            if (fake === undefined) return yield* Effect.dieMessage("no exchange")
            const funding = yield* store.fundingPage(labelOf(i), { pageIndex: 1, pageSize: 1_000_000 })
            const spot = yield* store.spotPage(labelOf(i), { limit: 1_000_000 })
            const sorted = (lines: ReadonlyArray<string>) => [...lines].sort()
            expect(sorted(funding.items.map((bill) => JSON.stringify(bill.raw)))).toEqual(
              sorted((yield* fake.bills("funding")).map((bill) => JSON.stringify(bill)))
            )
            expect(sorted(spot.map((bill) => JSON.stringify(bill.raw)))).toEqual(
              sorted((yield* fake.bills("spot")).map((bill) => JSON.stringify(bill)))
            )
          }
        }).pipe(Effect.provide(database))

        const log = exchange.requests().filter((request) => request.operation !== undefined)
        const seen = new Set(log.map((request) => request.address))
        const windows = [...seen].flatMap((address) =>
          (["fundingBills", "spotBills"] as const).map((operation) => ({
            address,
            operation,
            most: busiestWindow(
              log.filter((r) => r.address === address && r.operation === operation).map((r) => r.at),
              1000
            )
          }))
        )
        console.info(
          `fleet egress test: ${log.length} requests, per address ${[...seen].map((a) => `${a} ${log.filter((r) => r.address === a).length}`).join(", ")}; busiest 1-s window of one address ${Math.max(...windows.map((w) => w.most))} (limit ${perAddress}); ${log.filter((r) => r.status === 429).length} × 429`
        )
        // Each address has a budget of its own: together they went faster than one address may.
        const together = Math.max(
          ...(["fundingBills", "spotBills"] as const).map((operation) =>
            busiestWindow(
              log.filter((r) => r.operation === operation).map((r) => r.at),
              1000
            )
          )
        )
        expect([...seen].sort()).toEqual(addresses)
        expect(together).toBeGreaterThan(perAddress)
        expect(log.filter((request) => request.status === 429)).toEqual([])
        expect(windows.filter((each) => each.most > perAddress)).toEqual([])
        // An account leaves from one address, whichever runner owns it.
        for (let i = 0; i < accounts; i++) {
          const from = new Set(log.filter((r) => r.key === credentialsOf(i).apiKey).map((r) => r.address))
          expect(from.size).toBe(1)
        }
      }).pipe(Effect.scoped),
    240_000
  )

  it.live("a local address this machine does not have is refused before the runner joins", () =>
    Effect.gen(function* () {
      const runner = bills("bad", ["run", "--db", postgresUrl ?? "", "--local-address", "127.0.0.2,192.0.2.77"], {
        BILLS_FLEET_KEY: testKey
      })
      const code = yield* Effect.promise(() => runner.exited)
      expect(code).toBe(2)
      expect(runner.stderr()).toContain("--local-address 192.0.2.77 is not an address of this machine")
    })
  )
})
