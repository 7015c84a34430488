/**
 * A TCP proxy on loopback in front of a server (PostgreSQL, Redis): `cut` makes the server
 * unreachable for whoever connects through the proxy (open connections reset, new ones
 * refused), as a server that went away, without stopping a server that other tests share;
 * `restore` brings it back on the same port.
 */
import * as Net from "node:net"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

export interface TcpProxy {
  readonly port: number
  readonly cut: () => Promise<void>
  readonly restore: () => Promise<void>
  readonly close: () => Promise<void>
}

export const tcpProxy = async (targetPort: number): Promise<TcpProxy> => {
  const sockets = new Set<Net.Socket>()
  const make = () =>
    Net.createServer((client) => {
      const upstream = Net.connect(targetPort, "127.0.0.1")
      for (const socket of [client, upstream]) {
        sockets.add(socket)
        socket.on("close", () => sockets.delete(socket))
        socket.on("error", () => {
          client.destroy()
          upstream.destroy()
        })
      }
      client.pipe(upstream)
      upstream.pipe(client)
    })
  let server = make()
  const listen = (port: number) =>
    new Promise<number>((resolve) =>
      server.listen(port, "127.0.0.1", () => resolve((server.address() as Net.AddressInfo).port))
    )
  const port = await listen(0)
  const cut = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.resetAndDestroy()
      server.close(() => resolve())
    })
  return {
    port,
    cut,
    restore: async () => {
      server = make()
      await listen(port)
    },
    close: cut
  }
}

/** The port of a server's URL. */
export const portOf = (url: string) => Number(new URL(url).port)
/** `url` with its port replaced: the same server, reached through a proxy on `port`. */
export const through = (url: string, port: number) => {
  const target = new URL(url)
  target.port = String(port)
  return target.toString()
}

/** A proxy in front of the server of `url` for the lifetime of the scope. */
export const scopedProxy = (url: string): Effect.Effect<TcpProxy, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => tcpProxy(portOf(url))),
    (proxy) => Effect.promise(() => proxy.close())
  )
