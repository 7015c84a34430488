/**
 * A Redis server of a test's own, a real `redis-server` process on a loopback port, that the test
 * kills and starts again on the same port: back empty, as after a crash with no persistence.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as net from "node:net"
import * as Effect from "effect/Effect"
import { Redis } from "ioredis"
import type * as Scope from "effect/Scope"
import { freePorts } from "./ports.js"

/** Debian's redis-server, or undefined. */
export const redisServerBin: string | undefined = (() => {
  try {
    return execFileSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" }).trim() || undefined
  } catch {
    return undefined
  }
})()

export interface RedisServer {
  readonly url: string
  /** SIGKILLs the server and starts a new, empty one on the same port; resolves once it answers. */
  readonly restart: () => Effect.Effect<void>
  /** Empties the server (FLUSHALL), its clients' connections kept. */
  readonly flush: () => Effect.Effect<void>
  /**
   * Stops the server (SIGSTOP) until the scope closes: connections stay open and nothing is
   * answered, as a server that hangs.
   */
  readonly hang: () => Effect.Effect<void, never, Scope.Scope>
}

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, "127.0.0.1")
    socket.once("data", (data) => {
      socket.destroy()
      resolve(data.toString().startsWith("+PONG"))
    })
    socket.once("error", () => resolve(false))
    socket.once("connect", () => socket.write("PING\r\n"))
  })

/** A redis-server for the lifetime of the scope. */
export const scopedRedisServer: Effect.Effect<RedisServer, never, Scope.Scope> = Effect.gen(function* () {
  const [port = 0] = yield* freePorts(1)
  let proc: ChildProcess | undefined
  const start = Effect.gen(function* () {
    proc = spawn(
      redisServerBin ?? "redis-server",
      ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no"],
      { stdio: "ignore" }
    )
    // Asked every 10 ms, not at `until`'s pace: the server is back within a tenth of a second.
    yield* Effect.promise(async () => {
      const deadline = Date.now() + 10_000
      while (!(await answers(port))) {
        if (Date.now() > deadline) return false
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      return true
    }).pipe(Effect.filterOrDieMessage((up) => up, `redis-server on port ${port} did not start`))
  })
  const stop = Effect.promise(
    () =>
      new Promise<void>((resolve) => {
        const running = proc
        if (running === undefined || running.exitCode !== null || running.signalCode !== null) return resolve()
        running.once("exit", () => resolve())
        running.kill("SIGKILL")
      })
  )
  yield* Effect.acquireRelease(start, () => stop)
  const flush = () =>
    Effect.promise(async () => {
      const admin = new Redis(port, "127.0.0.1")
      await admin.flushall()
      await admin.quit()
    })
  const hang = () =>
    Effect.acquireRelease(
      Effect.sync(() => void proc?.kill("SIGSTOP")),
      () => Effect.sync(() => void proc?.kill("SIGCONT"))
    )
  return { url: `redis://127.0.0.1:${port}`, restart: () => Effect.zipRight(stop, start), flush, hang }
})
