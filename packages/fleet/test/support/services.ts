/**
 * The servers the fleet tests run against: the PostgreSQL of `.ci/postgres`
 * (ACCOUNT_BILLS_PG_URL) and the Redis of `.ci/redis` (ACCOUNT_BILLS_REDIS_URL). Without them
 * the tests that need them are skipped, and that is said loudly.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import {
  FleetAccounts,
  type FleetKeyInvalid,
  type FleetKeyMismatch,
  type FleetLabelInvalid,
  type FleetUnavailable
} from "../../src/index.js"

export const postgresUrl = process.env.ACCOUNT_BILLS_PG_URL || undefined
export const redisUrl = process.env.ACCOUNT_BILLS_REDIS_URL || undefined

const line = "!".repeat(100)
if (postgresUrl === undefined || redisUrl === undefined) {
  console.warn(
    `${line}\n!!! ACCOUNT_BILLS_PG_URL or ACCOUNT_BILLS_REDIS_URL is not set: the fleet tests that need them are SKIPPED.\n!!! Run them through .ci/postgres and .ci/redis: bash .ci/postgres bash .ci/redis pnpm vitest run packages/fleet\n${line}`
  )
}

let databases = 0

/** A fresh, empty database on the PostgreSQL server, as a `postgres://` URL. */
export const freshDatabase = (url: string): Effect.Effect<string> =>
  Effect.gen(function* () {
    const name = `ab_fleet_${process.pid}_${Date.now()}_${++databases}`
    const admin = yield* PgClient.make({ url: Redacted.make(url) })
    yield* admin`CREATE DATABASE ${admin(name)}`
    const target = new URL(url)
    target.pathname = `/${name}`
    return target.toString()
  }).pipe(Effect.scoped, Effect.provide(Reactivity.layer), Effect.orDie)

/**
 * Drops the database at `url` (one `freshDatabase` made on the server at `admin`), its sessions
 * ended, and checkpoints the server: a run that measures the server's CPU after it counts none of
 * what this one left (its autovacuum, its dirty buffers).
 */
export const dropDatabase = (admin: string, url: string): Effect.Effect<void> =>
  Effect.gen(function* () {
    const client = yield* PgClient.make({ url: Redacted.make(admin) })
    yield* client`DROP DATABASE IF EXISTS ${client(new URL(url).pathname.slice(1))} WITH (FORCE)`
    yield* client`CHECKPOINT`
  }).pipe(Effect.scoped, Effect.provide(Reactivity.layer), Effect.orDie)

/** A BILLS_FLEET_KEY for tests: 32 fixed bytes. */
export const testKey = Buffer.alloc(32, 7).toString("base64")

/** The credentials of a test account: plain strings, as the fake exchange knows them. */
export interface TestCredentials {
  readonly apiKey: string
  readonly secret: string
  readonly passphrase: string
}

/** Credentials as `FleetAccounts.add` takes them; `secret`, when given, in place of theirs (one the exchange refuses). */
export const redactedOf = (credentials: TestCredentials, secret: string = credentials.secret) => ({
  apiKey: Redacted.make(credentials.apiKey),
  secret: Redacted.make(secret),
  passphrase: Redacted.make(credentials.passphrase)
})

/** Adds accounts `0 … count - 1` to the fleet, `labelOf(i)` with `credentialsOf(i)`. */
export const addAccounts = (
  count: number,
  labelOf: (i: number) => string,
  credentialsOf: (i: number) => TestCredentials
): Effect.Effect<void, FleetKeyInvalid | FleetKeyMismatch | FleetUnavailable | FleetLabelInvalid, FleetAccounts> =>
  Effect.forEach(
    Array.from({ length: count }, (_, i) => i),
    (i) => Effect.flatMap(FleetAccounts, (fleet) => fleet.add(labelOf(i), redactedOf(credentialsOf(i)))),
    { discard: true }
  )
