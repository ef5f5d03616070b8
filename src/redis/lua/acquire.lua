-- Grants permits for one task on one or more limits, all or none. KEYS and ARGV are laid out by
-- `encodeAcquire` in src/redis/calls.ts, whose `AcquireCall` names each one; the design is in
-- docs/distributed.md.
-- Returns {1, granted, now, n1, w1, ..., epoch, probe}, {0, wait ms, now, n1, w1, ..., epoch}, {-1, index
-- of the limit the weight can never fit, now, ..., epoch} or {-2, 0, now} past its deadline
-- (nothing done); the epoch says which data Redis holds (another than before: it lost what it
-- held, see restore.lua); probe is 1 when the grant is the one request let through on a limit no
-- process knows yet (see check.lua). A repeated id returns its grant again. A process that knew
-- another epoch is told to wait 0 ms: it adds back what it sent before it asks again.
--
-- In order: confirmed grants move (confirm.lua), the process is noted as heard of (seen.lua), the
-- limits are read (limits.lua), a grant under this id already is returned again; then every limit
-- is checked (check.lua), and the process is either listed where it was held back (deny.lua) or
-- granted alike on every limit (grant.lua), with a lease for tasks to come (extra.lua).
--
-- The request, ask: ARGV by name (the deadline aside), the processes' key (procs), queued (at
-- least the weight) and slack, how long after it is due to ask again a process waiting stays
-- listed (lease + 50 ms).
local ask = {
  id = ARGV[1], weight = tonumber(ARGV[2]), want = tonumber(ARGV[3]), lease = tonumber(ARGV[4]), proc = ARGV[6],
  P = tonumber(ARGV[7]), stale = tonumber(ARGV[8]), grace = tonumber(ARGV[9]), extra = tonumber(ARGV[10]),
  room = ARGV[11] == '1', unlimited = tonumber(ARGV[13]), procs = KEYS[2],
}
ask.queued = math.max(tonumber(ARGV[12]), ask.weight)
ask.epoch = ARGV[#ARGV - 1]
ask.alive = ARGV[#ARGV - 2] == '1'
ask.lost = KEYS[#KEYS]
ask.slack = ask.lease + 50
local nl = (#KEYS - 4) / 4
local from = 14 + 7 * nl
for i = 1, nl do
  local b = 13 + (i - 1) * 7
  local k = tonumber(ARGV[b + 6])
  if k > 0 then
    confirm(KEYS[4 * i], KEYS[4 * i + 2], from, k, math.ceil(tonumber(ARGV[b + 2]) + tonumber(ARGV[b + 3]) + ask.lease) + 60000)
    from = from + 2 * k
  end
end
local deadline = tonumber(ARGV[5])
if deadline > 0 and now > deadline then return {-2, 0, math.floor(now)} end
local epoch = epochOf(KEYS[1], now)
-- Processes that granted lately, for the adding back after a loss (restore.lua).
-- With it, once, the replication id of the Redis they said it to: one that answers with another
-- became master since (a failover), and may lack grants (restore.lua).
if ask.alive then
  redis.call('ZADD', KEYS[#KEYS - 1], now, ask.proc)
  redis.call('ZREMRANGEBYSCORE', KEYS[#KEYS - 1], '-inf', now - 60000)
  redis.call('HSETNX', ask.lost, 'rid', replicationId())
end
-- Grants lost, and processes alive then still to add theirs back: limits in force wait for them.
local lostAt, waiting = unpack(redis.call('HMGET', ask.lost, 'at', 'n'))
if (tonumber(waiting) or 0) > 0 then ask.lostAt = tonumber(lostAt) end
local fresh = 0
if ask.P > 0 then fresh = seen(ask.procs, ask.proc, ask.stale, ask.grace) end
local limits, cfg, prev = limitsOf(ask.id)
cfg[#cfg + 1] = tostring(epoch)
if prev then return {1, tonumber(prev), math.floor(now), unpack(cfg)} end
-- A process that knew another epoch adds back what it sent (restore.lua) before it is granted more.
if ask.epoch ~= '' and ask.epoch ~= tostring(epoch) then return {0, 0, math.floor(now), unpack(cfg)} end
local heavy, wait, free = 0, 0, ask.want
for i, c in ipairs(limits) do
  local ms, most = check(c, ask, epoch, fresh)
  if not ms then heavy = i else wait, free = math.max(wait, ms), math.min(free, most) end
end
if heavy > 0 then return {-1, heavy, math.floor(now), unpack(cfg)} end
if wait > 0 then
  wait = math.ceil(wait)
  deny(limits, ask, wait)
  return {0, wait, math.floor(now), unpack(cfg)}
end
local granted = withExtra(limits, ask, math.max(ask.weight, free))
local probe = 0
for _, c in ipairs(limits) do
  grant(c, ask, granted)
  if c.probing then probe = 1 end
end
cfg[#cfg + 1] = probe
return {1, granted, math.floor(now), unpack(cfg)}
