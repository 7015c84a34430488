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
 *   SQLITE_BUSY is therefore dropped, and transactions run on a connection of their own.
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

/** The statement that begins a transaction of `mode`, as libsql's own transactions begin it. */
const beginOf = (mode: Libsql.TransactionMode | undefined): string =>
  mode === "read" ? "BEGIN TRANSACTION READONLY" : mode === "deferred" ? "BEGIN DEFERRED" : "BEGIN IMMEDIATE"

/**
 * The connection the process's transactions run on, apart from the one its other statements use
 * (a statement of another fiber must not land inside a transaction). It is kept from one
 * transaction to the next and replaced only when one may have poisoned it (`SQLITE_BUSY`, a failed
 * `COMMIT` or `ROLLBACK`). A connection per transaction, as libsql's `Client.transaction` makes,
 * leaks: libsql closes a connection's SQLite handle only when the garbage collector finalizes it,
 * `close` or not, and a process whose heap stays small may not do so for thousands of commits
 * (1,000 steady syncs held 4,000 file descriptors, past the 1,024 many systems allow a process,
 * and about 400 MB; the next statement failed with "unable to open database file").
 */
interface TransactionConnection {
  /** The connection, opened when first needed. */
  readonly take: () => Libsql.Client
  /** Closes `client` and lets the next transaction open another. */
  readonly drop: (client: Libsql.Client) => void
  readonly close: () => void
}

const transactionConnection = (open: () => Libsql.Client): TransactionConnection => {
  let current: Libsql.Client | undefined
  return {
    take: () => {
      current ??= open()
      return current
    },
    drop: (client) => {
      if (current === client) current = undefined
      closeQuietly(client)
    },
    close: () => {
      if (current !== undefined) closeQuietly(current)
      current = undefined
    }
  }
}

/**
 * A transaction begun on `client`. It ends at its `COMMIT`, its `ROLLBACK` or its `close`, and
 * leaves the connection for the next one unless the connection may be poisoned: a statement that
 * failed with `SQLITE_BUSY`, or an end that failed (a failed `COMMIT` may leave the transaction
 * open, which would hold the write lock until the process exits: closing the connection ends it).
 */
const transactionOn = (client: Libsql.Client, connection: TransactionConnection): Libsql.Transaction => {
  let closed = false
  let poisoned = false
  const refused = () => Promise.reject(new Libsql.LibsqlError("The transaction is closed", "TRANSACTION_CLOSED"))
  const run = <A>(statement: () => Promise<A>): Promise<A> =>
    closed
      ? refused()
      : statement().catch((error: unknown) => {
          if (isBusy(error)) poisoned = true
          throw error
        })
  const end = (statement: string): Promise<void> => {
    if (closed) return Promise.resolve()
    return client.execute(statement).then(
      () => {
        closed = true
        if (poisoned) connection.drop(client)
      },
      (error: unknown) => {
        closed = true
        connection.drop(client)
        throw error
      }
    )
  }
  return {
    execute: (statement: Libsql.InStatement) => run(() => client.execute(statement)),
    batch: (statements: Array<Libsql.InStatement>) =>
      run(async () => {
        const results: Array<Libsql.ResultSet> = []
        for (const statement of statements) results.push(await client.execute(statement))
        return results
      }),
    // The client's own would roll this transaction back as it ends; nothing in the store sends one.
    executeMultiple: () =>
      Promise.reject(new Error("executeMultiple is not supported inside the store's SQLite transactions")),
    commit: () => (closed ? refused() : end("COMMIT")),
    rollback: () => end("ROLLBACK"),
    close: () => {
      if (!closed) end("ROLLBACK").catch(() => undefined)
    },
    get closed() {
      return closed
    }
  }
}

/**
 * Takes the write lock without blocking the event loop: `BEGIN IMMEDIATE` on the transactions'
 * connection, again after short pauses (on a new connection) while another process writes.
 */
const patientTransaction = async (connection: TransactionConnection, mode: Libsql.TransactionMode | undefined) => {
  const deadline = Date.now() + lockWaitMillis
  for (let attempt = 0; ; attempt++) {
    const client = connection.take()
    try {
      await client.execute(beginOf(mode))
      return transactionOn(client, connection)
    } catch (error) {
      connection.drop(client)
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
      try: () => ({ current: open(), transactions: transactionConnection(open) }),
      catch: (cause) => new SqlError({ cause, message: "Failed to open the database" })
    }),
    (state) =>
      Effect.sync(() => {
        state.transactions.close()
        state.current.close()
      })
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
            return (mode?: Libsql.TransactionMode) => patientTransaction(state.transactions, mode)
          }
          if (property === "execute") return execute
          const value: unknown = Reflect.get(state.current, property, state.current)
          return typeof value === "function" ? value.bind(state.current) : value
        }
      })
    })
  )
}
