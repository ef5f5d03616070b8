// The Lua scripts a Redis store runs. Each runs atomically in Redis, reads the instant from
// Redis (TIME), and keeps per limit two keys: a hash ("meta": n, w, m, used, pause, one field
// "#<id>" per grant with its weight, and "~<id>" with the weight LATE moved out of a grant) and a
// sorted set ("log": grant id scored by the latest instant its permits may be sent, the grant's
// instant plus the lease).
//
// A grant scored s counts against the window until s + w + m: every permit of it is sent at
// or before s, or else moved by LATE to an entry scored after it was sent, so no interval of w
// can hold more than n of them. The "epoch" key has no expiry;
// a Redis without it has lost its log (a restart) or is new, and grants nothing until a span
// has passed since it was made again, so that permits granted before the loss have left the
// window.

const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
`;

/** Drops grants that left the window; returns the weight still in it. */
const EXPIRE = `
local function expire(meta, log, used, now, span)
  local old = redis.call('ZRANGEBYSCORE', log, '-inf', now - span)
  if #old == 0 then return used end
  for i = 1, #old, 500 do
    local ids = {}
    for j = i, math.min(i + 499, #old) do ids[#ids + 1] = '#' .. old[j] end
    local ws = redis.call('HMGET', meta, unpack(ids))
    for j = 1, #ws do used = used - (tonumber(ws[j]) or 0) end
    -- With each grant goes what LATE moved out of it ("~<id>").
    for j = i, math.min(i + 499, #old) do ids[#ids + 1] = '~' .. old[j] end
    redis.call('HDEL', meta, unpack(ids))
    local members = {}
    for j = i, math.min(i + 499, #old) do members[#members + 1] = old[j] end
    redis.call('ZREM', log, unpack(members))
  end
  if used < 0 then used = 0 end
  redis.call('HSET', meta, 'used', used)
  return used
end
`;

/**
 * Counts `weight` as sent now, under `id`: for what a process sent that Redis did not grant, or
 * did not count long enough. Counting it now, no earlier than it was sent, only ever over-counts.
 */
const COUNT = `
local function count(meta, log, used, now, span, id, weight)
  used = expire(meta, log, used, now, span)
  redis.call('ZADD', log, now, id)
  redis.call('HSET', meta, '#' .. id, weight, 'used', used + weight)
  redis.call('PEXPIRE', meta, math.ceil(span) + 60000)
  redis.call('PEXPIRE', log, math.ceil(span) + 60000)
end
`;

/**
 * Reads a limit's configuration, writing the caller's when Redis has none; with `field`, reads it
 * too in the same call, and the instant the keys were last set to expire ("x").
 * Returns n, w, the margin in force, used, pause, x, the field, and the late arrival any process
 * measured ("mx", ms) with when it was set ("mxt"). The margin in force is the configured one
 * ("m"), or "mx" when larger and set within the last max(10 s, 2 w): every grant counts that much
 * longer than w, in every script alike, so a request some process saw arrive that much later
 * than its quickest cannot bring two windows' requests into one at the exchange (R13).
 */
const CONFIG = `
local function config(meta, n, w, m, field)
  local c = redis.call('HMGET', meta, 'n', 'w', 'm', 'used', 'pause', 'x', field or 'x', 'mx', 'mxt')
  if not c[1] then
    redis.call('HSET', meta, 'n', n, 'w', w, 'm', m, 'used', 0)
    return n, w, m, 0, 0, 0, false, 0, 0
  end
  local cw, cm = tonumber(c[2]), tonumber(c[3])
  local mx, mxt = tonumber(c[8]) or 0, tonumber(c[9]) or 0
  if mx > cm and now - mxt <= math.max(10000, 2 * cw) then cm = mx end
  return tonumber(c[1]), cw, cm, tonumber(c[4]) or 0, tonumber(c[5]) or 0, tonumber(c[6]) or 0, c[7], mx, mxt
end
`;

/**
 * Counts the processes of a prefix that may be sending on a local share now: seen within the
 * horizon but not within `stale` ms (their Redis is unreachable), and, while the epoch is younger
 * than the horizon (Redis new or restarted), those of the `P` not seen at all.
 */
const AWAY = `
local function away(procs, now, epoch, P, fresh, horizon)
  local seen = redis.call('ZCOUNT', procs, now - horizon, '+inf')
  local a = seen - fresh
  if now - epoch < horizon then a = math.max(a, P - fresh) end
  return math.max(a, 0)
end
`;

/** Reads the epoch, making it now if Redis has none. */
const EPOCH = `
local function epochOf(key, now)
  local e = tonumber(redis.call('GET', key))
  if not e then
    redis.call('SET', key, tostring(now))
    return now
  end
  return e
end
`;

/**
 * Grants permits for one task on one or more limits, all or none.
 * KEYS: epoch, processes, then meta and log of each limit.
 * ARGV: id, weight, want, lease (ms), deadline (Redis ms; 0: none), process, P (0: no local
 * shares), stale (ms), grace (ms), then per limit: n, w, m, reserved (held back from this
 * priority), late (the latest arrival this process measured lately, ms: kept as "mx" when it is
 * the largest, or the one kept is older than its time).
 * Returns {1, granted, now, n1, w1, ...}, {0, wait ms, now, n1, w1, ...}, {-1, index of the limit
 * the weight can never fit, now, ...} or {-2, 0, now} past its deadline (nothing done). A
 * repeated id returns its grant again.
 */
export const ACQUIRE = `${NOW}${EXPIRE}${CONFIG}${AWAY}${EPOCH}
local id = ARGV[1]
local weight = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
local lease = tonumber(ARGV[4])
local deadline = tonumber(ARGV[5])
local P = tonumber(ARGV[7])
local stale = tonumber(ARGV[8])
local grace = tonumber(ARGV[9])
if deadline > 0 and now > deadline then return {-2, 0, math.floor(now)} end
local k = (#KEYS - 2) / 2
local epoch = epochOf(KEYS[1], now)
local fresh = 0
if P > 0 then
  redis.call('ZADD', KEYS[2], now, ARGV[6])
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - grace - 172800000)
  fresh = redis.call('ZCOUNT', KEYS[2], now - stale, '+inf')
end
local cfg = {}
-- Every limit's configuration first, with whether this id was granted already (a repeated
-- request returns its grant again) and when the keys were last set to expire.
local conf = {}
local prev = false
for i = 1, k do
  local b = 9 + (i - 1) * 5
  local c = {config(KEYS[1 + 2 * i], tonumber(ARGV[b + 1]), tonumber(ARGV[b + 2]), tonumber(ARGV[b + 3]), '#' .. id)}
  -- Kept when larger, or when the one kept is out of its time; the same one is kept again once a
  -- second at most, so that it stays in force while measured, at no call on most grants.
  local late = tonumber(ARGV[b + 5])
  if late > 0 and (late > c[8] or now - c[9] > (late == c[8] and 1000 or math.max(10000, 2 * c[2]))) then
    redis.call('HSET', KEYS[1 + 2 * i], 'mx', late, 'mxt', now)
    if late > c[3] then c[3] = late end
  end
  conf[i] = c
  if c[7] then prev = c[7] end
  cfg[#cfg + 1] = c[1]; cfg[#cfg + 1] = c[2]
end
if prev then return {1, tonumber(prev), math.floor(now), unpack(cfg)} end
local wait = 0
local heavy = 0
local free = want
local used = {}
local spans = {}
for i = 1, k do
  local meta, log = KEYS[1 + 2 * i], KEYS[2 + 2 * i]
  local b = 9 + (i - 1) * 5
  local n, w, m, u, pause = conf[i][1], conf[i][2], conf[i][3], conf[i][4], conf[i][5]
  local span = w + m
  spans[i] = span
  u = expire(meta, log, u, now, span)
  used[i] = u
  local cap = n - tonumber(ARGV[b + 4])
  if weight > cap then
    heavy = i
  else
    if P > 0 then cap = cap - math.min(n, away(KEYS[2], now, epoch, P, fresh, grace + 2 * span) * math.floor(n / P)) end
    local from = math.max(epoch + span + lease, pause)
    if from > now then
      wait = math.max(wait, from - now)
    elseif u + weight > cap then
      local need = u + weight - cap
      -- Shares held for processes away may free before any grant does: look again after stale.
      local found = stale
      if need <= u then
        local entries = redis.call('ZRANGE', log, 0, -1, 'WITHSCORES')
        local ids = {}
        for j = 1, #entries, 2 do ids[#ids + 1] = '#' .. entries[j] end
        local ws = redis.call('HMGET', meta, unpack(ids))
        local freed = 0
        for j = 1, #ws do
          freed = freed + (tonumber(ws[j]) or 0)
          if freed >= need then
            found = tonumber(entries[2 * j]) + span - now
            break
          end
        end
      end
      wait = math.max(wait, found)
    else
      free = math.min(free, cap - u)
    end
  end
end
if heavy > 0 then return {-1, heavy, math.floor(now), unpack(cfg)} end
if wait > 0 then return {0, math.ceil(wait), math.floor(now), unpack(cfg)} end
local granted = math.max(weight, free)
for i = 1, k do
  local meta, log = KEYS[1 + 2 * i], KEYS[2 + 2 * i]
  redis.call('ZADD', log, now + lease, id)
  local ttl = math.ceil(spans[i] + lease) + 60000
  -- The keys' expiry is set again when it is 10 s old, or when the log may be new (nothing was
  -- counted): they expire 50 to 60 s after their last write, at two calls fewer per grant.
  local x = conf[i][6]
  if used[i] == 0 or now + ttl - x > 10000 then
    x = now + ttl
    redis.call('PEXPIRE', meta, ttl)
    redis.call('PEXPIRE', log, ttl)
  end
  redis.call('HSET', meta, '#' .. id, granted, 'used', used[i] + granted, 'x', x)
end
return {1, granted, math.floor(now), unpack(cfg)}
`;

/**
 * A process says it is here (and, coming back from a local share, what it sent on it), unless
 * past its deadline.
 * KEYS: epoch, processes, then meta and log of each limit.
 * ARGV: process, id for the entries, deadline, then per limit: n, w, m, weight sent (counted as
 * sent now, which is no earlier than it was).
 * Returns {1, now} or {-2, now}.
 */
export const HELLO = `${NOW}${EXPIRE}${COUNT}${CONFIG}${EPOCH}
if tonumber(ARGV[3]) > 0 and now > tonumber(ARGV[3]) then return {-2, math.floor(now)} end
epochOf(KEYS[1], now)
redis.call('ZADD', KEYS[2], now, ARGV[1])
for i = 1, (#KEYS - 2) / 2 do
  local meta, log = KEYS[1 + 2 * i], KEYS[2 + 2 * i]
  local b = 3 + (i - 1) * 4
  local n, w, m, u = config(meta, tonumber(ARGV[b + 1]), tonumber(ARGV[b + 2]), tonumber(ARGV[b + 3]))
  local weight = tonumber(ARGV[b + 4])
  if weight > 0 then count(meta, log, u, now, w + m, ARGV[2], weight) end
end
return {1, math.floor(now)}
`;

/**
 * Permits of a grant that a process may have sent after their score (its clock, read after the
 * dispatch, was past the lease): moved, in one step, out of the grant to an entry of their own
 * counted from now, so that they count until a window after they were sent. A grant already gone
 * from the log leaves nothing to move: they are counted from now all the same. The weight moved
 * is kept ("~<grant>") for RELEASE, which then sets the grant to what was sent on time, whichever
 * of the two Redis runs first. A repeated id does nothing.
 * KEYS: meta, log. ARGV: n, w, m, id, weight, grant id.
 */
export const LATE = `${NOW}${EXPIRE}${COUNT}${CONFIG}
if redis.call('HEXISTS', KEYS[1], '#' .. ARGV[4]) == 1 then return 0 end
local n, w, m, u = config(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
local weight = tonumber(ARGV[5])
local g = tonumber(redis.call('HGET', KEYS[1], '#' .. ARGV[6]))
if g then
  local moved = math.min(g, weight)
  redis.call('HSET', KEYS[1], '#' .. ARGV[6], g - moved)
  redis.call('HINCRBY', KEYS[1], '~' .. ARGV[6], moved)
  u = u - moved
end
count(KEYS[1], KEYS[2], u, now, w + m, ARGV[4], weight)
return 1
`;

/** Whether Redis answers; changes nothing. */
export const PROBE = `return 1`;

/**
 * Ends a grant on one limit: what was sent of it (`sent`) stays counted, the rest is given back.
 * What LATE moved out of it is counted by an entry of its own, and left out here. Setting, not
 * subtracting, makes a repeated call harmless.
 * KEYS: meta, log. ARGV: id, sent.
 */
export const RELEASE = `
local g = tonumber(redis.call('HGET', KEYS[1], '#' .. ARGV[1]))
if not g then return 0 end
local sent = tonumber(ARGV[2]) - (tonumber(redis.call('HGET', KEYS[1], '~' .. ARGV[1])) or 0)
if sent >= g then return 0 end
if sent <= 0 then
  redis.call('HDEL', KEYS[1], '#' .. ARGV[1], '~' .. ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
else
  redis.call('HSET', KEYS[1], '#' .. ARGV[1], sent)
end
local used = (tonumber(redis.call('HGET', KEYS[1], 'used')) or 0) - (g - sent)
if used < 0 then used = 0 end
redis.call('HSET', KEYS[1], 'used', used)
return g - sent
`;

/**
 * What the exchange said (R12), for every process: a pause of `pause` ms from now, and a hold
 * of `hold` weight for `holdMs` ms (headers saying fewer remain than counted).
 * KEYS: meta, log. ARGV: n, w, m, pause ms, hold weight, hold ms, hold id.
 */
export const FEEDBACK = `${NOW}${EXPIRE}${CONFIG}
local n, w, m, u, pause = config(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
local span = w + m
local p = tonumber(ARGV[4])
if p > 0 and now + p > pause then redis.call('HSET', KEYS[1], 'pause', now + p) end
local hold, holdMs = tonumber(ARGV[5]), tonumber(ARGV[6])
if hold > 0 and holdMs > 0 then
  u = expire(KEYS[1], KEYS[2], u, now, span)
  local extra = math.min(hold, n) - u
  if extra > 0 then
    redis.call('ZADD', KEYS[2], now + holdMs - span, ARGV[7])
    redis.call('HSET', KEYS[1], '#' .. ARGV[7], extra, 'used', u + extra)
  end
end
local ttl = math.ceil(span + math.max(p, holdMs)) + 60000
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
return 1
`;

/**
 * A new N and W for every process (R13: what was sent in the trailing window counts at once).
 * KEYS: meta. ARGV: n, w, m.
 */
export const UPDATE = `
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'n', ARGV[1], 'w', ARGV[2], 'm', ARGV[3], 'used', 0)
  redis.call('PEXPIRE', KEYS[1], math.ceil(tonumber(ARGV[2]) + tonumber(ARGV[3])) + 60000)
else
  redis.call('HSET', KEYS[1], 'n', ARGV[1], 'w', ARGV[2], 'm', ARGV[3])
end
return 1
`;

/**
 * Writes a batch of counts (an account's requests and fills per day, contract and hour) and reads
 * the totals back, in one step. A batch is a process's counts since its last one: numbered in
 * order per process, so a batch sent again (its answer lost) counts once; or history written once
 * under an id, whichever process writes it. Nothing is written when the process counted on data
 * Redis has lost since (the epoch differs): the process writes its own counts again whole.
 * KEYS: epoch, batch numbers, the once key (or the epoch again), the keys written, the keys read.
 * ARGV: process, batch number (0: none), epoch the process knows ('': none), 'add' or 'absent'
 * (write only keys that do not exist), once (1: the third key must be new), keys written, keys
 * read, then per key written: expiry (Redis ms), fields, field, increment, ...
 * Returns {status (1 written, 0 written before, -3 epoch changed), epoch, last batch number of the
 * process, then each key read as field, value, ...}.
 */
export const COUNTS = `
local raw = redis.call('GET', KEYS[1])
if not raw then
  local t = redis.call('TIME')
  raw = tostring(tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000)
  redis.call('SET', KEYS[1], raw)
end
local nw, nr = tonumber(ARGV[6]), tonumber(ARGV[7])
local status = 1
if ARGV[3] ~= '' and ARGV[3] ~= raw then
  status = -3
else
  local seq = tonumber(ARGV[2])
  if seq > 0 then
    local last = tonumber(redis.call('HGET', KEYS[2], ARGV[1])) or 0
    if seq <= last then status = 0 else
      redis.call('HSET', KEYS[2], ARGV[1], seq)
      redis.call('PEXPIRE', KEYS[2], 93600000)
    end
  end
  if status == 1 and ARGV[5] == '1' and not redis.call('SET', KEYS[3], 1, 'NX', 'PX', 777600000) then status = 0 end
  if status == 1 then
    local a = 8
    for i = 1, nw do
      local key = KEYS[3 + i]
      local n = tonumber(ARGV[a + 1])
      if ARGV[4] == 'add' or redis.call('EXISTS', key) == 0 then
        for j = 1, n do redis.call('HINCRBY', key, ARGV[a + 2 * j], ARGV[a + 2 * j + 1]) end
        redis.call('PEXPIREAT', key, ARGV[a])
      end
      a = a + 2 + 2 * n
    end
  end
end
local out = {status, raw, tonumber(redis.call('HGET', KEYS[2], ARGV[1])) or 0}
for i = 1, nr do out[#out + 1] = redis.call('HGETALL', KEYS[3 + nw + i]) end
return out
`;
