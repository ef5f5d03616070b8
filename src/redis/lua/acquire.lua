-- Grants permits for one task on one or more limits, all or none.
-- KEYS: epoch, processes, then meta, log and waiting processes of each limit ("q": process ->
-- "until:weight waiting:score:instant of the score").
-- ARGV: id, weight, want (what waits, as much as one grant may take), lease (ms), deadline
-- (Redis ms; 0: none), process, P (0: no local shares), stale (ms), grace (ms), extra (permits
-- beyond want, a lease for tasks to come), room (1: the extra only while the limit stays at most
-- half used), queued (the weight this process has waiting), unlimited (an N at or above which a
-- limit is not in force: a throttle off), then per limit: n, w, m, reserved
-- (held back from this priority), late (the latest arrival this process measured lately, ms:
-- kept as "mx" when it is the largest, or the one kept is older than its time), and last the
-- instant (see instant.lua).
-- Returns {1, granted, now, n1, w1, ...}, {0, wait ms, now, n1, w1, ...}, {-1, index of the limit
-- the weight can never fit, now, ...} or {-2, 0, now} past its deadline (nothing done). A
-- repeated id returns its grant again.
--
-- Fair shares: a process with more waiting than it is granted says so in "q" until a little after
-- it will ask again (a new entry sets the key's expiry), with its score: the weight it was granted
-- while listed, decaying by e every quarter of a window (what it took one window does not weigh
-- on the next). While other processes wait and what all of them want does not fit, a grant goes
-- only to a process whose score is less than one above the least of the others waiting; the
-- others are told to look again when that one is due to ask. Permits freed one by one thus go
-- round the processes one by one, not to whichever process's grants left the window first. An
-- entry whose score has decayed away (10 windows and 10 s), or that cannot be read, is dropped.
--
-- Grants that left the window are dropped when it matters (what waits may not fit counting them,
-- others wait), else every span or 250 ms, whichever is shorter (so that one drop never holds
-- Redis up for long): most grants save four calls.
--
-- In order: every limit's configuration first, with whether this id was granted already (a
-- repeated request returns its grant again), when the keys were last set to expire ("x"), when
-- grants that left the window were last dropped ("e"), until when some process may be waiting
-- ("qt"). The latest arrival sent is kept when larger, or when the one kept is out of its time;
-- the same one is kept again once a second at most, so that it stays in force while measured, at
-- no call on most grants. A process held back for another looks again when that one is due to
-- have asked; one denied for room when Redis says enough will have left the window, or after
-- `stale` when shares held for processes away may free first. A Redis new or restarted (its
-- epoch younger than a limit's span and lease) holds back a limit in force, never one that is
-- not (N at or above `unlimited`): permits granted before the loss may still be in its window,
-- and a limit not in force has none the exchange counts. A process denied is listed in "q" of
-- the limits that held it back, not of those that had room for it: it competes on those only when
-- it asks again. A process waiting (denied, or
-- granted less than waits) is listed in "q" until `lease` + 50 ms after it is due to ask again; a
-- process listed that is granted all it waits for stays in "q", not waiting, with its score. A
-- lease for tasks to come is never added while processes wait their turn, and with room only
-- while the limit stays at most half used, so that it holds back no other process on a limit that
-- binds. The keys' expiry is set again when it is 10 s old, or when the log may be new (nothing
-- was counted): they expire 50 to 60 s after their last write, at two calls fewer per grant.
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
local unlimited = tonumber(ARGV[13])
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
  local b = 13 + (i - 1) * 5
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
  local b = 13 + (i - 1) * 5
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
    local from = math.max(c.n < unlimited and epoch + span + lease or 0, c.pause)
    local others = c.qt >= now
    if from > now then
      c.held = true
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
        c.held = true
        wait = math.max(wait, due - slack - now, 2)
      elseif u + weight > cap then
        c.held = true
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
    if conf[i].held then
      local meta, q = KEYS[3 * i], KEYS[3 * i + 2]
      local til = math.ceil(now + wait + slack)
      if redis.call('HSET', q, proc, til .. ':' .. queued .. ':' .. conf[i].score .. ':' .. now) == 1 then redis.call('PEXPIRE', q, math.ceil(conf[i].span + lease) + 60000) end
      if til > conf[i].qt then redis.call('HSET', meta, 'qt', til) end
    end
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
