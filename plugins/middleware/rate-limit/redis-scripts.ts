/**
 * The Redis limiter's scripts. Each runs atomically on Redis' own clock (`TIME`), so instances whose
 * clocks disagree still count in the same windows. Per rule, two keys: its sorted set (entries scored
 * by time: requests, or `id:tokens` for tokens; concurrency leases scored by expiry) and, for tokens,
 * the running sum of the set, so a check costs the entries that left the window, not all of them.
 * Kinds are one letter: r(equests), t(okens), c(oncurrent).
 */
const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * KEYS: set and sum per rule. ARGV: window ms, lease ms, admission id, concurrency retry ms, then kind
 * and limit per rule. Returns {1, standings…} (admitted, counted everywhere) or {0, retry ms, rule index,
 * standings…}. Standings are two numbers per rule, for the rate-limit headers: what the window holds
 * (requests, this one included when admitted, or tokens) and the ms until it is empty; 0, 0 for a
 * concurrency rule.
 */
export const ADMIT = `${NOW}
local window, lease, id, busy = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
local rules = (#ARGV - 4) / 2
local held, empty = {}, {}

local function untilEmpty(set)
  local newest = redis.call('ZRANGE', set, -1, -1, 'WITHSCORES')
  if #newest == 0 then return 0 end
  return tonumber(newest[2]) + window - now
end

local function requests(i, set, limit)
  redis.call('ZREMRANGEBYSCORE', set, '-inf', now - window)
  local count = redis.call('ZCARD', set)
  held[i] = count
  if count < limit then return 0 end
  empty[i] = untilEmpty(set)
  local due = redis.call('ZRANGE', set, count - limit, count - limit, 'WITHSCORES')
  return tonumber(due[2]) + window - now
end

local function tokens(i, set, total, limit)
  local gone = redis.call('ZRANGEBYSCORE', set, '-inf', now - window)
  local sum = tonumber(redis.call('GET', total) or '0')
  if #gone > 0 then
    for _, m in ipairs(gone) do sum = sum - tonumber(string.match(m, ':(%d+)$')) end
    redis.call('ZREMRANGEBYSCORE', set, '-inf', now - window)
    if redis.call('EXISTS', set) == 0 then sum = 0 end
    redis.call('SET', total, sum, 'KEEPTTL')
  end
  held[i], empty[i] = sum, untilEmpty(set)
  if sum < limit then return 0 end
  local entries = redis.call('ZRANGE', set, 0, -1, 'WITHSCORES')
  for j = 1, #entries, 2 do
    sum = sum - tonumber(string.match(entries[j], ':(%d+)$'))
    if sum < limit then return tonumber(entries[j + 1]) + window - now end
  end
  return window
end

local function concurrent(i, set, limit)
  held[i], empty[i] = 0, 0
  redis.call('ZREMRANGEBYSCORE', set, '-inf', now)
  if redis.call('ZCARD', set) < limit then return 0 end
  return busy
end

local wait, refused = 0, 0
for i = 1, rules do
  local kind, limit, set = ARGV[3 + 2 * i], tonumber(ARGV[4 + 2 * i]), KEYS[2 * i - 1]
  local w
  if kind == 'r' then w = requests(i, set, limit)
  elseif kind == 't' then w = tokens(i, set, KEYS[2 * i], limit)
  else w = concurrent(i, set, limit) end
  if w > wait then wait, refused = w, i end
end

local answer
if refused > 0 then
  answer = {0, wait, refused}
  for i = 1, rules do
    if ARGV[3 + 2 * i] == 'r' and empty[i] == nil then empty[i] = untilEmpty(KEYS[2 * i - 1]) end
  end
else
  answer = {1}
  for i = 1, rules do
    local kind, set = ARGV[3 + 2 * i], KEYS[2 * i - 1]
    if kind == 'r' then
      redis.call('ZADD', set, now, id)
      redis.call('PEXPIRE', set, window)
      held[i], empty[i] = held[i] + 1, window
    elseif kind == 'c' then
      redis.call('ZADD', set, now + lease, id)
      redis.call('PEXPIRE', set, lease * 2)
    end
  end
end
for i = 1, rules do
  answer[#answer + 1] = held[i]
  answer[#answer + 1] = empty[i]
end
return answer
`;

/** KEYS: set and sum per rule. ARGV: window ms, admission id, tokens, then kind per rule. */
export const SETTLE = `${NOW}
local window, id, tokens = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
for i = 1, #ARGV - 3 do
  local kind, set = ARGV[3 + i], KEYS[2 * i - 1]
  if kind == 't' and tokens > 0 then
    redis.call('ZADD', set, now, id .. ':' .. tokens)
    redis.call('INCRBY', KEYS[2 * i], tokens)
    redis.call('PEXPIRE', set, window)
    redis.call('PEXPIRE', KEYS[2 * i], window)
  elseif kind == 'c' then
    redis.call('ZREM', set, id)
  end
end
return 1
`;

/** KEYS: lease sets. ARGV: lease ms, then the lease id in each set. Renews leases still held (XX). */
export const RENEW = `${NOW}
local lease = tonumber(ARGV[1])
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], 'XX', now + lease, ARGV[i + 1])
  redis.call('PEXPIRE', KEYS[i], lease * 2)
end
return 1
`;
