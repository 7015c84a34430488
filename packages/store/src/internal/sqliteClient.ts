/**
 * The libsql client the store hands to `@effect/sql-libsql`, made safe for several processes
 * writing one SQLite file. Three faults of the stack underneath made two syncs at once hang:
 *
 * - libsql runs SQLite synchronously on the event loop, so a busy timeout freezes the whole
 *   process while it waits for another process's lock (no lease renewal, no signal handling).
 *   The busy timeout therefore stays at SQLite's default of 0: a locked statement fails at once
 *   and is tried again after a pause, here for `BEGIN IMMEDIATE`, by the store for the others.
 * - A statement that fails with SQLITE_BUSY stays "in progress" on its connection (libsql does
 *   not reset it; tursodatabase/libsql-client-ts#352). On that connection every later `COMMIT`
 *   then fails, and an autocommit write is not committed, so the write lock is held until the
 *   garbage collector finalizes the statement, which may be never. A connection that met
 *   SQLITE_BUSY is therefore dropped, and each transaction begins on a connection of its own.
 * - A `BEGIN` that fails kept @effect/sql-libsql's connection permit for good, so every later
 *   statement of the process, the lease's release included, waited forever. The workspace
 *   patches that leak (patches/@effect__sql-libsql@0.42.0.patch); the wait here keeps it from
 *   being reached before `lockWaitMillis`.
 */
import { SqlError } from "@effect/sql/SqlError"
import * as Libsql from "@libsql/client"
import * as Effect from "effect/Effect"

/** How long a write transaction waits for another process's write lock before failing. */
const lockWaitMillis = 60_000

const busy = /SQLITE_BUSY|database is locked/i

const isBusy = (error: unknown): boolean =>
  error instanceof Error && (busy.test(error.message) || ("code" in error && busy.test(String(error.code))))

const pause = (millis: number) => new Promise<void>((resolve) => setTimeout(resolve, millis))

/** Closing a client whose connection is poisoned must not fail the statement that found it so. */
const closeQuietly = (client: Libsql.Client) => {
  try {
    client.close()
  } catch {
    // The connection is dropped either way; its last statement is finalized with it.
  }
}

/**
 * A failed `COMMIT` may leave SQLite's transaction open on its connection, and that connection,
 * which libsql gives to nobody else, would then hold the write lock until the process exits.
 */
const rollingBackOnFailedCommit = (transaction: Libsql.Transaction): Libsql.Transaction =>
  new Proxy(transaction, {
    get: (target, property) => {
      if (property === "commit") {
        return async () => {
          try {
            await target.commit()
          } catch (error) {
            try {
              target.close()
            } catch {
              // The commit's own failure is the one to report; the connection is not used again.
            }
            throw error
          }
        }
      }
      const value: unknown = Reflect.get(target, property, target)
      return typeof value === "function" ? value.bind(target) : value
    }
  })

/**
 * Takes the write lock without blocking the event loop: `BEGIN IMMEDIATE` on a fresh connection,
 * again after short pauses while another process writes.
 */
const patientTransaction = async (open: () => Libsql.Client, mode: Libsql.TransactionMode | undefined) => {
  const deadline = Date.now() + lockWaitMillis
  for (let attempt = 0; ; attempt++) {
    const client = open()
    try {
      const transaction = await client.transaction(mode)
      // The transaction owns the connection now; the client is left without one, and closed.
      client.close()
      return rollingBackOnFailedCommit(transaction)
    } catch (error) {
      closeQuietly(client)
      if (!isBusy(error)) throw error
      if (Date.now() >= deadline) {
        // Not a busy message: the store's retry of busy statements must not wait all over again.
        throw new Error(`another process held the store's write lock for ${lockWaitMillis / 1000} s`, {
          cause: error
        })
      }
      // Spread out, so that processes waiting together do not retry in step.
      await pause(Math.min(2 ** Math.min(attempt, 6), 50) * (0.5 + Math.random()))
    }
  }
}

/**
 * The libsql client of the SQLite file at `path`, closed with the scope.
 *
 * @since 0.1.0
 */
export const make = (path: string) => {
  const open = () => Libsql.createClient({ url: `file:${path}` })
  return Effect.acquireRelease(
    Effect.try({
      try: () => ({ current: open() }),
      catch: (cause) => new SqlError({ cause, message: "Failed to open the database" })
    }),
    (state) => Effect.sync(() => state.current.close())
  ).pipe(
    Effect.map((state): Libsql.Client => {
      const execute = async (...args: Parameters<Libsql.Client["execute"]>) => {
        const client = state.current
        try {
          return await client.execute(...args)
        } catch (error) {
          if (isBusy(error) && state.current === client) {
            state.current = open()
            closeQuietly(client)
          }
          throw error
        }
      }
      return new Proxy(state.current, {
        get: (_, property) => {
          if (property === "transaction") {
            return (mode?: Libsql.TransactionMode) => patientTransaction(open, mode)
          }
          if (property === "execute") return execute
          const value: unknown = Reflect.get(state.current, property, state.current)
          return typeof value === "function" ? value.bind(state.current) : value
        }
      })
    })
  )
}
