/**
 * A Lua script sent by its digest: `EVALSHA` names the script Redis has cached, and only when
 * Redis answers that it has none (`NOSCRIPT`: a restarted or flushed Redis, a new replica) is the
 * text sent, with `EVAL`, which caches it again. The budget asks Redis twice per request; with
 * `EVAL` each ask sent the whole script (about 2.5 KB for the two), which the runner's profile
 * showed as its largest single write (issue 38, section 3, third round).
 */
import * as Crypto from "node:crypto"
import type { Redis } from "ioredis"

/** A script and its SHA-1 digest, the name Redis caches it under. */
export interface RedisScript {
  readonly lua: string
  readonly sha: string
}

/** The script `lua` with its digest. */
export const make = (lua: string): RedisScript => ({
  lua,
  sha: Crypto.createHash("sha1").update(lua, "utf8").digest("hex")
})

const noScript = (error: unknown): boolean => error instanceof Error && error.message.startsWith("NOSCRIPT")

/** Runs `script` with `keys` keys first in `args`: by digest, and by text only when Redis lacks it. */
export const run = <A>(redis: Redis, script: RedisScript, keys: number, args: ReadonlyArray<string | number>) =>
  (redis.evalsha(script.sha, keys, ...args) as Promise<A>).catch((error: unknown) =>
    noScript(error) ? (redis.eval(script.lua, keys, ...args) as Promise<A>) : Promise.reject(error)
  )
