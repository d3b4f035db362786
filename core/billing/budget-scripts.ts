/**
 * The Redis budget ledger's scripts (redis-budget-ledger.ts). Each runs atomically on Redis' own clock.
 * Per subject (a key or a team), three names:
 *   S        hash: `held` (the sum of its holds), `amount` and `period` of its budget as last checked
 *   S:h      sorted set of its calls' holds, `holdId:micros` scored by lease expiry (a dead instance's
 *            holds lapse; live ones are renewed)
 *   S:p:<t>  hash per period (t: the period's start): `spent`, `seeded` (0 while being read from the
 *            usage store, 1 after), `began` (when that read began)
 * and S:t, the holds of its video tasks under way (task id → micros), which last until the task ends.
 */
const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * KEYS: S, S:h, S:p:<t> per subject. ARGV: lease ms, hold id, micros, then amount and period per subject,
 * then 1 when the whole of micros must fit in what is left (a batch), 0 when some room is enough.
 * Returns {1} (admitted, held against each when micros > 0), {0, i} (subject i's budget is spent) or
 * {-1, i} (subject i's spend in this period has not been read from the store yet).
 */
export const ADMIT = `${NOW}
local lease, id, micros = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local n = #KEYS / 3
local asked = 0
if ARGV[4 + 2 * n] == '1' then asked = micros end
for i = 1, n do
  local subject, holds = KEYS[3 * i - 2], KEYS[3 * i - 1]
  local lapsed = redis.call('ZRANGEBYSCORE', holds, '-inf', now)
  if #lapsed > 0 then
    local gone = 0
    for _, m in ipairs(lapsed) do gone = gone + tonumber(string.match(m, ':(%d+)$')) end
    redis.call('ZREMRANGEBYSCORE', holds, '-inf', now)
    redis.call('HINCRBY', subject, 'held', -gone)
  end
  if redis.call('HGET', KEYS[3 * i], 'seeded') ~= '1' then return {-1, i} end
end
for i = 1, n do
  local subject, amount = KEYS[3 * i - 2], tonumber(ARGV[2 + 2 * i])
  redis.call('HSET', subject, 'amount', amount, 'period', ARGV[3 + 2 * i])
  local held = math.max(0, tonumber(redis.call('HGET', subject, 'held') or '0'))
  local spent = tonumber(redis.call('HGET', KEYS[3 * i], 'spent') or '0')
  if spent + held >= amount or spent + held + asked > amount then return {0, i} end
end
if micros > 0 then
  for i = 1, n do
    redis.call('ZADD', KEYS[3 * i - 1], now + lease, id .. ':' .. micros)
    redis.call('HINCRBY', KEYS[3 * i - 2], 'held', micros)
  end
end
return {1}
`;

/**
 * KEYS: S:p:<t>. ARGV: ms after which a read begun and never finished is abandoned. Returns 0 when the
 * caller is to read the period's spend (records are counted into it from now, from 0), 1 when it has
 * been read, 2 while another instance reads it.
 */
export const BEGIN_SEED = `${NOW}
local seeded = redis.call('HGET', KEYS[1], 'seeded')
if seeded == '1' then return 1 end
local began = tonumber(redis.call('HGET', KEYS[1], 'began') or '0')
if seeded and now - began <= tonumber(ARGV[1]) then return 2 end
redis.call('HSET', KEYS[1], 'seeded', '0', 'spent', 0, 'began', now)
return 0
`;

/**
 * KEYS: S:p:<t>. ARGV: the store's spend for the period, and when the period's counts may go (epoch ms,
 * 0: never). Adds the store's spend to the records counted since the read began, once.
 */
export const FINISH_SEED = `
if redis.call('HGET', KEYS[1], 'seeded') ~= '0' then return 0 end
redis.call('HINCRBY', KEYS[1], 'spent', ARGV[1])
redis.call('HSET', KEYS[1], 'seeded', '1')
if tonumber(ARGV[2]) > 0 then redis.call('PEXPIREAT', KEYS[1], ARGV[2]) end
return 1
`;

/**
 * KEYS: the record's token, then S, S:p:0 and S:p:<month of the record> per subject. ARGV: the record's
 * cost, and how long its token is kept. Counts it in the period of each subject's budget, where that
 * period is being counted, once per token: a record sent again after a timeout (it may have run) is not
 * counted twice. Returns, per subject counted: its index, spend before, spend after, amount, and 1 for a
 * monthly budget (0 for total).
 */
export const RECORD = `
if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[2]) then return {} end
local cost = tonumber(ARGV[1])
local out = {}
for i = 1, (#KEYS - 1) / 3 do
  local subject = KEYS[3 * i - 1]
  local period = redis.call('HGET', subject, 'period')
  local spent = nil
  if period == 'total' then spent = KEYS[3 * i] elseif period == 'month' then spent = KEYS[3 * i + 1] end
  if spent and redis.call('EXISTS', spent) == 1 then
    local before = tonumber(redis.call('HGET', spent, 'spent') or '0')
    redis.call('HINCRBY', spent, 'spent', cost)
    local amount = tonumber(redis.call('HGET', subject, 'amount') or '0')
    local monthly = 0
    if period == 'month' then monthly = 1 end
    for _, v in ipairs({i, before, before + cost, amount, monthly}) do out[#out + 1] = v end
  end
end
return out
`;

/** KEYS: lease sets. ARGV: lease ms, then the hold's member in each set. Renews holds still held (XX). */
export const RENEW = `${NOW}
local lease = tonumber(ARGV[1])
for i = 1, #KEYS do redis.call('ZADD', KEYS[i], 'XX', now + lease, ARGV[i + 1]) end
return 1
`;

/** KEYS: S, S:h per subject. ARGV: the hold's member, micros. Releases the hold where it still stands. */
export const RELEASE = `
local member, micros = ARGV[1], tonumber(ARGV[2])
for i = 1, #KEYS / 2 do
  if redis.call('ZREM', KEYS[2 * i], member) == 1 then
    redis.call('HINCRBY', KEYS[2 * i - 1], 'held', -micros)
  end
end
return 1
`;

/**
 * KEYS: the task's index, then S, S:h, S:t per subject. ARGV: hold member, micros, task id, index value.
 * Moves a call's hold onto its task (holding again where the call's hold had lapsed).
 */
export const HOLD_TASK = `
local member, micros, task = ARGV[1], tonumber(ARGV[2]), ARGV[3]
redis.call('SET', KEYS[1], ARGV[4])
for i = 1, (#KEYS - 1) / 3 do
  local subject, holds, tasks = KEYS[3 * i - 1], KEYS[3 * i], KEYS[3 * i + 1]
  if redis.call('ZREM', holds, member) == 0 then redis.call('HINCRBY', subject, 'held', micros) end
  redis.call('HSET', tasks, task, micros)
end
return 1
`;

/**
 * KEYS: the task's index, then S, S:t per subject. ARGV: task id. Releases a task's holds once, each
 * by what it holds now (a batch's hold shrinks as it runs).
 */
export const END_TASK = `
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
for i = 1, (#KEYS - 1) / 2 do
  local held = redis.call('HGET', KEYS[2 * i + 1], ARGV[1])
  if held then
    redis.call('HDEL', KEYS[2 * i + 1], ARGV[1])
    redis.call('HINCRBY', KEYS[2 * i], 'held', -tonumber(held))
  end
end
return 1
`;

/** KEYS: S, S:t per subject. ARGV: task id, micros. Lowers the task's hold to micros where it is higher. */
export const SHRINK_TASK = `
local task, micros = ARGV[1], tonumber(ARGV[2])
for i = 1, #KEYS / 2 do
  local held = tonumber(redis.call('HGET', KEYS[2 * i], task) or '-1')
  if held > micros then
    redis.call('HSET', KEYS[2 * i], task, micros)
    redis.call('HINCRBY', KEYS[2 * i - 1], 'held', micros - held)
  end
end
return 1
`;
