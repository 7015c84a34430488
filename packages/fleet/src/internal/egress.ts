/**
 * Egress addresses: a runner may send its accounts' requests from several local addresses,
 * since the exchange limits each source address apart. Each address gets its own undici agent
 * bound to it (undici's `localAddress`: its `connect.localAddress` is overwritten per connection)
 * and draws from its own budget; an account always leaves
 * from the same address, so its requests stay under one budget whichever runner owns it.
 */
import * as Net from "node:net"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Effect from "effect/Effect"
import { Agent } from "undici"

/** One egress address and the client whose connections leave from it. */
export interface EgressRoute {
  readonly address: string
  readonly client: HttpClient.HttpClient
}

/**
 * The route of `account` among `routes` (undefined when there are none): by a hash of its label
 * (FNV-1a), so every runner given the same list picks the same one, and accounts spread evenly.
 */
export const routeOf = <A>(account: string, routes: ReadonlyArray<A>): A | undefined => {
  let hash = 0x811c9dc5
  for (const byte of new TextEncoder().encode(account)) {
    hash = Math.imul(hash ^ byte, 0x01000193) >>> 0
  }
  return routes[hash % routes.length]
}

/** A client per address, for the lifetime of the scope. */
export const routes = (addresses: ReadonlyArray<string>) =>
  Effect.forEach(addresses, (address) =>
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => new Agent({ localAddress: address })),
        (agent) => Effect.promise(() => agent.destroy().catch(() => undefined))
      ),
      (agent): EgressRoute => ({ address, client: NodeHttpClient.makeUndici(agent) })
    )
  )

/**
 * Why `address` cannot be an egress address of this machine, or undefined when it can: an IP
 * address that a socket can be bound to.
 */
export const unusable = (address: string): Effect.Effect<string | undefined> =>
  Net.isIP(address) === 0
    ? Effect.succeed("is not an IP address")
    : Effect.async<string | undefined>((resume) => {
        const server = Net.createServer()
        server.once("error", (error: NodeJS.ErrnoException) =>
          resume(
            Effect.succeed(
              error.code === "EADDRNOTAVAIL" ? "is not an address of this machine" : `cannot be bound (${error.code})`
            )
          )
        )
        server.listen(0, address, () => server.close(() => resume(Effect.succeed(undefined))))
      })
