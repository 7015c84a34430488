/**
 * The Redis side of the shared budget: a sliding-window log per (address, operation) in a
 * sorted set, one Lua script per grant and one per release. Redis runs a script alone and
 * stamps with its own clock (`TIME`), so every process on the address counts against one log
 * on one clock.
 *
 * A request's arrival at the exchange is only known to lie between its grant and the end of
 * its answer, so a grant counts from the moment it is given until one window after its request
 * has finished: while in flight its entry's score is `now + hold` (a request lasts at most
 * `hold`, so a crashed process's grants free themselves), and its release moves the score to
 * the instant it finished. An entry counts while its score is in `(now - window, ∞)`.
 */

/**
 * KEYS[1] the log; ARGV limit, window ms, member, hold ms. Answers `{1, now}` for a grant, or
 * `{0, wait}`: milliseconds worth waiting before asking again.
 */
export const grantScript = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local hold = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < limit then
  redis.call('ZADD', KEYS[1], now + hold, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], hold + window + 1000)
  return {1, now}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, math.max(1, math.min(tonumber(oldest[2]) + window - now, 50))}
`

/** KEYS[1] the log; ARGV member. Places a finished request's entry at now; answers now. */
export const releaseScript = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], 'XX', now, ARGV[1])
return now
`

/** The sorted set of one address and operation. */
export const logKey = (prefix: string, address: string, operation: string): string =>
  `${prefix}:${address}:${operation}`
