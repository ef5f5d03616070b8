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

/**
 * Drops grants that left the window, with what LATE moved out of them ("~<id>"); returns the
 * weight still in it. Grants are dropped lazily (see ACQUIRE): the weight counted may include some
 * that left, which only ever over-counts.
 */
const EXPIRE = `
local function expire(meta, log, used, now, span)
  local old = redis.call('ZRANGEBYSCORE', log, '-inf', now - span)
  if #old == 0 then return used end
  for i = 1, #old, 500 do
    local ids = {}
    for j = i, math.min(i + 499, #old) do ids[#ids + 1] = '#' .. old[j] end
    local ws = redis.call('HMGET', meta, unpack(ids))
    for j = 1, #ws do used = used - (tonumber(ws[j]) or 0) end
    for j = i, math.min(i + 499, #old) do ids[#ids + 1] = '~' .. old[j] end
    redis.call('HDEL', meta, unpack(ids))
  end
  redis.call('ZREMRANGEBYSCORE', log, '-inf', now - span)
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
 * Reads a limit's configuration, writing the caller's when Redis has none; with `fields`, reads
 * them too in the same call.
 * Returns n, w, the margin in force, used, pause, the values of `fields` in order, then the late
 * arrival any process measured ("mx", ms) with when it was set ("mxt"). The margin in force is the
 * configured one ("m"), or "mx" when larger and set within the last max(10 s, 2 w): every grant
 * counts that much longer than w, in every script alike, so a request some process saw arrive
 * that much later than its quickest cannot bring two windows' requests into one at the exchange
 * (R13).
 */
const CONFIG = `
local function config(meta, n, w, m, fields)
  fields = fields or {}
  local c = redis.call('HMGET', meta, 'n', 'w', 'm', 'used', 'pause', 'mx', 'mxt', unpack(fields))
  local extra = {}
  for j = 1, #fields do extra[j] = c[7 + j] or false end
  if not c[1] then
    redis.call('HSET', meta, 'n', n, 'w', w, 'm', m, 'used', 0)
    return n, w, m, 0, 0, extra, 0, 0
  end
  local cw, cm = tonumber(c[2]), tonumber(c[3])
  local mx, mxt = tonumber(c[6]) or 0, tonumber(c[7]) or 0
  if mx > cm and now - mxt <= math.max(10000, 2 * cw) then cm = mx end
  return tonumber(c[1]), cw, cm, tonumber(c[4]) or 0, tonumber(c[5]) or 0, extra, mx, mxt
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
 * KEYS: epoch, processes, then meta, log and waiting processes of each limit ("q": process ->
 * "until:weight waiting:score:instant of the score").
 * ARGV: id, weight, want (what waits, as much as one grant may take), lease (ms), deadline
 * (Redis ms; 0: none), process, P (0: no local shares), stale (ms), grace (ms), extra (permits
 * beyond want, a lease for tasks to come), room (1: the extra only while the limit stays at most
 * half used), queued (the weight this process has waiting), then per limit: n, w, m, reserved
 * (held back from this priority), late (the latest arrival this process measured lately, ms:
 * kept as "mx" when it is the largest, or the one kept is older than its time).
 * Returns {1, granted, now, n1, w1, ...}, {0, wait ms, now, n1, w1, ...}, {-1, index of the limit
 * the weight can never fit, now, ...} or {-2, 0, now} past its deadline (nothing done). A
 * repeated id returns its grant again.
 *
 * Fair shares: a process with more waiting than it is granted says so in "q" until a little after
 * it will ask again (a new entry sets the key's expiry), with its score: the weight it was granted
 * while listed, decaying by e every quarter of a window (what it took one window does not weigh
 * on the next). While other processes wait and what all of them want does not fit, a grant goes
 * only to a process whose score is less than one above the least of the others waiting; the
 * others are told to look again when that one is due to ask. Permits freed one by one thus go
 * round the processes one by one, not to whichever process's grants left the window first. An
 * entry whose score has decayed away (10 windows and 10 s), or that cannot be read, is dropped.
 *
 * Grants that left the window are dropped when it matters (what waits may not fit counting them,
 * others wait), else every span or 250 ms, whichever is shorter (so that one drop never holds
 * Redis up for long): most grants save four calls.
 *
 * In order: every limit's configuration first, with whether this id was granted already (a
 * repeated request returns its grant again), when the keys were last set to expire ("x"), when
 * grants that left the window were last dropped ("e"), until when some process may be waiting
 * ("qt"). The latest arrival sent is kept when larger, or when the one kept is out of its time;
 * the same one is kept again once a second at most, so that it stays in force while measured, at
 * no call on most grants. A process held back for another looks again when that one is due to
 * have asked; one denied for room when Redis says enough will have left the window, or after
 * `stale` when shares held for processes away may free first. A process waiting (denied, or
 * granted less than waits) is listed in "q" until `lease` + 50 ms after it is due to ask again; a
 * process listed that is granted all it waits for stays in "q", not waiting, with its score. A
 * lease for tasks to come is never added while processes wait their turn, and with room only
 * while the limit stays at most half used, so that it holds back no other process on a limit that
 * binds. The keys' expiry is set again when it is 10 s old, or when the log may be new (nothing
 * was counted): they expire 50 to 60 s after their last write, at two calls fewer per grant.
 */
export const ACQUIRE = `${NOW}${EXPIRE}${CONFIG}${AWAY}${EPOCH}
local id = ARGV[1]
local weight = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
local lease = tonumber(ARGV[4])
local deadline = tonumber(ARGV[5])
local proc = ARGV[6]
local P = tonumber(ARGV[7])
local stale = tonumber(ARGV[8])
local grace = tonumber(ARGV[9])
local extra = tonumber(ARGV[10])
local room = ARGV[11] == '1'
local queued = math.max(tonumber(ARGV[12]), weight)
if deadline > 0 and now > deadline then return {-2, 0, math.floor(now)} end
local k = (#KEYS - 2) / 3
local epoch = epochOf(KEYS[1], now)
local fresh = 0
if P > 0 then
  redis.call('ZADD', KEYS[2], now, proc)
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - grace - 172800000)
  fresh = redis.call('ZCOUNT', KEYS[2], now - stale, '+inf')
end
local slack = lease + 50
local cfg = {}
local conf = {}
local prev = false
for i = 1, k do
  local meta = KEYS[3 * i]
  local b = 12 + (i - 1) * 5
  local n, w, m, u, pause, f, mx, mxt = config(meta, tonumber(ARGV[b + 1]), tonumber(ARGV[b + 2]), tonumber(ARGV[b + 3]), {'#' .. id, 'x', 'e', 'qt'})
  local late = tonumber(ARGV[b + 5])
  if late > 0 and (late > mx or now - mxt > (late == mx and 1000 or math.max(10000, 2 * w))) then
    redis.call('HSET', meta, 'mx', late, 'mxt', now)
    if late > m then m = late end
  end
  conf[i] = {n = n, w = w, m = m, u = u, pause = pause, x = tonumber(f[2]) or 0, e = tonumber(f[3]) or 0, qt = tonumber(f[4]) or 0, score = 0}
  if f[1] then prev = f[1] end
  cfg[#cfg + 1] = n; cfg[#cfg + 1] = w
end
if prev then return {1, tonumber(prev), math.floor(now), unpack(cfg)} end
local wait = 0
local heavy = 0
local free = want
for i = 1, k do
  local meta, log, q = KEYS[3 * i], KEYS[3 * i + 1], KEYS[3 * i + 2]
  local b = 12 + (i - 1) * 5
  local c = conf[i]
  local u = c.u
  local span = c.w + c.m
  c.span = span
  local cap = c.n - tonumber(ARGV[b + 4])
  if weight > cap then
    heavy = i
  else
    if P > 0 then cap = cap - math.min(c.n, away(KEYS[2], now, epoch, P, fresh, grace + 2 * span) * math.floor(c.n / P)) end
    c.cap = cap
    local from = math.max(epoch + span + lease, c.pause)
    local others = c.qt >= now
    if from > now then
      wait = math.max(wait, from - now)
    else
      if u + want > cap or others or now - c.e >= math.min(span, 250) then
        u = expire(meta, log, u, now, span)
        c.swept = true
      end
      local fair = math.huge
      local due = now
      if others then
        local all = redis.call('HGETALL', q)
        local demand, least, any, gone = 0, math.huge, false, {}
        for j = 1, #all, 2 do
          local til, d, v, t = string.match(all[j + 1], '^([^:]*):([^:]*):([^:]*):(.*)$')
          til, d, v, t = tonumber(til), tonumber(d), tonumber(v), tonumber(t)
          local sc = v and t and v * math.exp(4 * (t - now) / c.w)
          if not (til and d and sc) then
            gone[#gone + 1] = all[j]
          elseif all[j] == proc then
            c.listed = true
            c.score = sc
          elseif til >= now then
            any = true
            demand = demand + d
            if sc < least then least, due = sc, til end
          elseif now - t > 10 * c.w + 10000 then
            gone[#gone + 1] = all[j]
          end
        end
        if #gone > 0 then redis.call('HDEL', q, unpack(gone)) end
        if any and u + queued + demand > cap then
          c.fair = true
          fair = math.floor(least + 1 - c.score) + weight
        end
      end
      if fair < weight then
        wait = math.max(wait, due - slack - now, 2)
      elseif u + weight > cap then
        local need = u + weight - cap
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
        free = math.min(free, cap - u, fair)
      end
    end
  end
  c.u = u
end
if heavy > 0 then return {-1, heavy, math.floor(now), unpack(cfg)} end
if wait > 0 then
  wait = math.ceil(wait)
  for i = 1, k do
    local meta, q = KEYS[3 * i], KEYS[3 * i + 2]
    local til = math.ceil(now + wait + slack)
    if redis.call('HSET', q, proc, til .. ':' .. queued .. ':' .. conf[i].score .. ':' .. now) == 1 then redis.call('PEXPIRE', q, math.ceil(conf[i].span + lease) + 60000) end
    if til > conf[i].qt then redis.call('HSET', meta, 'qt', til) end
  end
  return {0, wait, math.floor(now), unpack(cfg)}
end
local granted = math.max(weight, free)
if extra > 0 then
  local x = extra
  for i = 1, k do
    local c = conf[i]
    if c.fair then x = 0 else x = math.min(x, (room and math.floor(c.cap / 2) or c.cap) - c.u - granted) end
  end
  if x > 0 then granted = granted + x end
end
local more = queued - granted
for i = 1, k do
  local meta, log, q = KEYS[3 * i], KEYS[3 * i + 1], KEYS[3 * i + 2]
  local c = conf[i]
  redis.call('ZADD', log, now + lease, id)
  local ttl = math.ceil(c.span + lease) + 60000
  local x = c.x
  if c.u == 0 or now + ttl - x > 10000 then
    x = now + ttl
    redis.call('PEXPIRE', meta, ttl)
    redis.call('PEXPIRE', log, ttl)
    redis.call('PEXPIRE', q, ttl)
  end
  local set = {'#' .. id, granted, 'used', c.u + granted, 'x', x}
  if c.swept then set[#set + 1] = 'e'; set[#set + 1] = now end
  local score = c.score + granted
  if more > 0 then
    local til = math.ceil(now + slack)
    if redis.call('HSET', q, proc, til .. ':' .. more .. ':' .. score .. ':' .. now) == 1 then redis.call('PEXPIRE', q, ttl) end
    set[#set + 1] = 'qt'; set[#set + 1] = math.max(c.qt, til)
  elseif c.listed then
    redis.call('HSET', q, proc, '0:0:' .. score .. ':' .. now)
  end
  redis.call('HSET', meta, unpack(set))
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
 * read, then per key written: time to live (ms), fields, field, increment, ...
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
        redis.call('PEXPIRE', key, ARGV[a])
      end
      a = a + 2 + 2 * n
    end
  end
end
local out = {status, raw, tonumber(redis.call('HGET', KEYS[2], ARGV[1])) or 0}
for i = 1, nr do out[#out + 1] = redis.call('HGETALL', KEYS[3 + nw + i]) end
return out
`;
