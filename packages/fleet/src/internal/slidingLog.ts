/**
 * The Redis side of the shared budget: a sliding-window log per (address, operation) in a
 * sorted set, one Lua script per grant. Redis runs a script alone, and stamps grants with its
 * own clock (`TIME`), so every process on the address counts against one log on one clock.
 *
 * The script admits at `now` when fewer than `limit` grants lie in `(now - window, now]`; it
 * then records `now` and answers `{1, now}`. Otherwise it answers `{0, wait}`: the milliseconds
 * until the oldest grant in the window leaves it.
 */
export const grantScript = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window + 1000)
  return {1, now}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, tonumber(oldest[2]) + window - now}
`

/** The sorted set of one address and operation. */
export const logKey = (prefix: string, address: string, operation: string): string =>
  `${prefix}:${address}:${operation}`
