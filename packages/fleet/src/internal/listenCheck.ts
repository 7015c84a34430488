/**
 * Whether this process can listen on an address now: a runner asks it of its cluster address and
 * of its metrics address before it joins, so that a port taken or an address not of this machine
 * stops it in one line, with no shard taken. The socket is closed at once; the runner's own
 * servers listen there a moment later (a port taken in between still fails them, as before).
 */
import * as Net from "node:net"
import * as Effect from "effect/Effect"

/** Undefined when `host:port` can be listened on, else the system's reason (`listen EADDRINUSE: …`). */
export const unlistenable = (host: string, port: number): Effect.Effect<string | undefined> =>
  Effect.async<string | undefined>((resume) => {
    const server = Net.createServer()
    server.once("error", (error: Error) => resume(Effect.succeed(error.message.split("\n")[0] ?? error.message)))
    server.listen({ host, port, exclusive: true }, () => server.close(() => resume(Effect.succeed(undefined))))
    return Effect.sync(() => server.close())
  })
