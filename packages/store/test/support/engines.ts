/**
 * The engines every store test runs on: a SQLite file in a fresh temp dir, and a fresh
 * database on the PostgreSQL server whose URL `.ci/postgres` puts in ACCOUNT_BILLS_PG_URL.
 * Without that server the PostgreSQL runs are skipped, and that is said loudly.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { StoreTarget } from "../../src/StoreTarget.js"

/** The server's URL, when one runs. */
export const postgresUrl = process.env.ACCOUNT_BILLS_PG_URL

if (postgresUrl === undefined || postgresUrl === "") {
  const line = "!".repeat(100)
  console.warn(
    `${line}\n!!! ACCOUNT_BILLS_PG_URL is not set: the store tests SKIP PostgreSQL and run on SQLite only.\n!!! Run them through .ci/postgres (e.g. \`.ci/postgres pnpm vitest run packages/store\`) to include it.\n${line}`
  )
}

let databases = 0

/** A fresh, empty store target for one test. */
export interface Engine {
  readonly name: "sqlite" | "postgres"
  readonly fresh: Effect.Effect<StoreTarget>
}

const sqlite: Engine = {
  name: "sqlite",
  fresh: Effect.sync(() => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "account-bills-store-"))
    const file = path.join(dir, "bills.sqlite")
    return { _tag: "Sqlite", path: file, display: file }
  })
}

const postgres = (url: string): Engine => ({
  name: "postgres",
  fresh: Effect.gen(function* () {
    const name = `ab_test_${process.pid}_${Date.now()}_${++databases}`
    const admin = yield* PgClient.make({ url: Redacted.make(url) })
    yield* admin`CREATE DATABASE ${admin(name)}`
    const target = new URL(url)
    target.pathname = `/${name}`
    return { _tag: "Postgres", url: target.toString(), display: target.toString() } as const
  }).pipe(Effect.scoped, Effect.provide(Reactivity.layer), Effect.orDie)
})

/** SQLite always; PostgreSQL when its server runs. */
export const engines: ReadonlyArray<Engine> = [
  sqlite,
  ...(postgresUrl === undefined || postgresUrl === "" ? [] : [postgres(postgresUrl)])
]
