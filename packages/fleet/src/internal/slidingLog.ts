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
 * What a loss of the log would break, and how it is caught. Redis restarted empty (or a failover
 * that lost the last writes) forgets the grants of the last window while the exchange still
 * counts their requests: every runner would take the empty log for a fresh budget and send a
 * whole limit at once. So beside each log a state key holds an id, written when the state is
 * first made; a restart loses it with the log. A grant that finds no state makes a new one and
 * grants nothing for a whole window from then (every grant any runner knows of was given before
 * that instant). And a process that finds the log lost what it wrote (its id is not the
 * state's, or its latest grant that still counts is missing from the log: a failover that kept
 * the state but lost the last writes) puts its own grants of the last window back into the log
 * before it is granted: they count whatever Redis says.
 *
 * The caller's releases of its finished requests on this log ride with its grants (see
 * `releaseScript`): each moves a request's entry from `now + hold` to the instant it finished,
 * given as its age, and is applied before the log is counted.
 *
 * KEYS[1] the log, KEYS[2] its state; ARGV limit, window ms, member, hold ms, the state id the
 * caller knows (`""` if none), an id for a state made now, then `1` and the caller's own recent
 * grants or `0` and nothing: its latest grant that still counts (`""` if none), the number of
 * releases, the releases as (member, age ms) pairs, then the own grants as (member, age ms)
 * pairs, age `-1` for one in flight.
 * Answers `{1, now, id}` for a grant; `{0, wait, id}`: milliseconds worth waiting before asking
 * again; `{2, 0, id}`: ask again with your own grants.
 */
export const grantScript = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local hold = tonumber(ARGV[4])
local id = redis.call('HGET', KEYS[2], 'id')
if not id then
  id = ARGV[6]
  redis.call('HSET', KEYS[2], 'id', id, 'quiet', now + window)
end
local own = 10 + 2 * tonumber(ARGV[9])
if id ~= ARGV[5] or (ARGV[8] ~= '' and not redis.call('ZSCORE', KEYS[1], ARGV[8])) then
  if ARGV[7] ~= '1' then return {2, 0, id} end
  for i = own, #ARGV - 1, 2 do
    local age = tonumber(ARGV[i + 1])
    redis.call('ZADD', KEYS[1], age < 0 and now + hold or now - age, ARGV[i])
  end
  redis.call('PEXPIRE', KEYS[1], hold + window + 1000)
end
for i = 10, own - 1, 2 do
  redis.call('ZADD', KEYS[1], now - tonumber(ARGV[i + 1]), ARGV[i])
end
if own > 10 then redis.call('PEXPIRE', KEYS[1], hold + window + 1000) end
local quiet = tonumber(redis.call('HGET', KEYS[2], 'quiet'))
if now < quiet then return {0, math.max(1, math.min(quiet - now, 50)), id} end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < limit then
  redis.call('ZADD', KEYS[1], now + hold, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], hold + window + 1000)
  return {1, now, id}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, math.max(1, math.min(tonumber(oldest[2]) + window - now, 50)), id}
`

/**
 * KEYS[1] the log; ARGV window ms, hold ms, then (member, age ms) pairs: places each finished
 * request's entry at the instant it finished, `now - age` (adding it again if a loss of the log
 * took it); answers now. The age is the caller's time since the request finished when it sent
 * the release, so the entry lands where a release sent at that instant would have put it, and
 * counts no shorter. While a release waits for a grant of its process to ride with (or goes alone
 * after a short delay), its entry still counts as in flight: the place is held longer, never less.
 */
export const releaseScript = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 3, #ARGV - 1, 2 do
  redis.call('ZADD', KEYS[1], now - tonumber(ARGV[i + 1]), ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) + tonumber(ARGV[1]) + 1000)
return now
`

/** The sorted set of one address and operation. */
export const logKey = (prefix: string, address: string, operation: string): string =>
  `${prefix}:${address}:${operation}`

/** The state key beside a log: its id is lost with the log when Redis loses its data. */
export const stateKey = (log: string): string => `${log}:state`
