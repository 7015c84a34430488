/**
 * A SqlClient whose reserved connections run one statement at a time. The cluster keeps its
 * shard locks on one reserved PostgreSQL connection and, when a lock operation outlives its
 * deadline (a busy machine, a slow server), starts the next one beside it. node-postgres then
 * queues the second statement on the busy client, which it deprecates ("Calling client.query()
 * when the client is already executing a query", a warning on every runner, and an error in
 * pg 9). Waiting here for the statement before keeps the same order without that queue.
 * Transactions take their connection another way and are left as they are.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

const inOrder = (connection: Connection, one: Effect.Semaphore): Connection => ({
  execute: (sql, params, transformRows) => one.withPermits(1)(connection.execute(sql, params, transformRows)),
  executeRaw: (sql, params) => one.withPermits(1)(connection.executeRaw(sql, params)),
  executeValues: (sql, params) => one.withPermits(1)(connection.executeValues(sql, params)),
  executeUnprepared: (sql, params, transformRows) =>
    one.withPermits(1)(connection.executeUnprepared(sql, params, transformRows)),
  // A cursor holds the client for as long as it is read.
  executeStream: (sql, params, transformRows) =>
    Stream.unwrapScoped(
      Effect.as(
        Effect.acquireRelease(one.take(1), () => one.release(1)),
        connection.executeStream(sql, params, transformRows)
      )
    )
})

/** `sql`, its `reserve` giving connections that run one statement at a time. */
export const make = (sql: SqlClient.SqlClient): SqlClient.SqlClient => {
  const reserve = Effect.flatMap(sql.reserve, (connection) =>
    Effect.map(Effect.makeSemaphore(1), (one) => inOrder(connection, one))
  )
  // The client is a tagged-template function with properties: a proxy keeps both.
  return new Proxy(sql, {
    get: (target, property, receiver) => (property === "reserve" ? reserve : Reflect.get(target, property, receiver))
  })
}
