/**
 * Loopback ports for the servers the fleet's process tests start (runners' cluster sockets,
 * metrics servers, Prometheus). A fixed port inside the kernel's ephemeral range (32768–60999 on
 * Linux) is taken, now and then, by one of the many outgoing connections the tests make, to
 * PostgreSQL, Redis and the exchange: the runner then cannot listen and exits
 * (`EADDRINUSE`), and the test fails on an unrelated line. Hence ports below that range, which
 * no outgoing connection takes, chosen at random and checked free.
 */
import * as fs from "node:fs"
import * as net from "node:net"
import * as Effect from "effect/Effect"

/** The lowest port the kernel hands to outgoing connections (Linux's setting, or its default). */
const ephemeralLow = (() => {
  try {
    const low = Number(fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0])
    return Number.isInteger(low) && low > 12_000 ? low : 32_768
  } catch {
    return 32_768
  }
})()

/** Whether nothing listens on `port` of 127.0.0.1 now. */
const isFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = net.createServer()
    server.once("error", () => resolve(false))
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)))
  })

/** `count` distinct loopback ports, free now, below the ephemeral range. */
export const freePorts = (count: number): Effect.Effect<ReadonlyArray<number>> =>
  Effect.promise(async () => {
    const ports = new Set<number>()
    while (ports.size < count) {
      const port = 10_000 + Math.floor(Math.random() * (ephemeralLow - 10_000))
      if (!ports.has(port) && (await isFree(port))) ports.add(port)
    }
    return [...ports]
  })
