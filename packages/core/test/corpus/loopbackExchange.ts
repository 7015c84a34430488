/**
 * A real HTTP server on 127.0.0.1 (port 0) that answers each request from a function of it, and
 * records what it was asked: the corpus's samples reach the client over a socket, through the
 * same HttpClient a user runs, not a stub in memory.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"

/** A request as the server received it. */
export interface Received {
  readonly method: string
  readonly path: string
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly body: string
}

/** What the server answers. */
export interface Reply {
  readonly status: number
  readonly body: string
}

/** A running server: its base URL and every request so far. */
export interface Loopback {
  readonly url: string
  readonly received: ReadonlyArray<Received>
}

const headerText = (value: string | ReadonlyArray<string> | undefined): string | undefined =>
  typeof value === "string" ? value : value === undefined ? undefined : value.join(", ")

/**
 * Starts a server answering with `answer`, closed (every connection with it) when the scope ends.
 */
export const loopbackExchange = (answer: (request: Received) => Reply) =>
  Effect.acquireRelease(
    Effect.async<{ readonly loopback: Loopback; readonly server: http.Server }>((resume) => {
      const received: Array<Received> = []
      const server = http.createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          const headers: Record<string, string | undefined> = {}
          for (const [name, value] of Object.entries(request.headers)) headers[name] = headerText(value)
          const asked: Received = {
            method: request.method ?? "",
            path: request.url ?? "",
            headers,
            body: Buffer.concat(chunks).toString("utf8")
          }
          received.push(asked)
          const reply = answer(asked)
          // An empty body goes without a content type, as the exchange's load balancer sends one.
          response.writeHead(reply.status, reply.body === "" ? {} : { "content-type": "application/json" })
          response.end(reply.body)
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ loopback: { url: `http://127.0.0.1:${port}`, received }, server }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ loopback }) => loopback))
