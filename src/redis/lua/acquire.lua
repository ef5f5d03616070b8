-- Grants permits for one task on one or more limits, all or none.
-- KEYS: epoch, processes, then meta, log, waiting processes ("q": process -> "until:weight
-- waiting:score:instant of the score") and grants confirmed by their arrivals of each limit.
-- ARGV: id, weight, want (what waits, as much as one grant may take), lease (ms), deadline
-- (Redis ms; 0: none), process, P (0: no local shares), stale (ms), grace (ms), extra (permits
-- beyond want, a lease for tasks to come), room (1: the extra only while the limit stays at most
-- half used), queued (the weight this process has waiting), unlimited (an N at or above which a
-- limit is not in force: a throttle off), then per limit: n, w, m, reserved
-- (held back from this priority), late (the latest arrival this process measured lately, ms:
-- kept as "mx" when it is the largest, or the one kept is older than its time), k (how many of this
-- process's grants on it are confirmed), then the confirmed grants of every limit in turn (a grant
-- id and the latest arrival of its permits, a Redis instant: see confirm.lua), and last the
-- instant (see instant.lua).
-- Returns {1, granted, now, n1, w1, ...}, {0, wait ms, now, n1, w1, ...}, {-1, index of the limit
-- the weight can never fit, now, ...} or {-2, 0, now} past its deadline (nothing done). A
-- repeated id returns its grant again.
--
-- In order: the grants confirmed are moved (confirm.lua, whatever the rest does), the process is
-- noted as heard of (seen.lua, with local shares), every limit's configuration is read
-- (limits.lua), and a grant made already under this id is returned again.
-- Then every limit is checked (check.lua: held back, its fair share, its room), each one even
-- after one the weight can never fit. A process held back is listed on the limits that held it
-- back (deny.lua) and told the longest wait; else it is granted on every limit alike (grant.lua)
-- what waits, as much as every limit has room for within its fair share, at least its weight,
-- and a lease for tasks to come (extra.lua).
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
ask.slack = ask.lease + 50
local nl = (#KEYS - 2) / 4
local from = 14 + 6 * nl
for i = 1, nl do
  local k = tonumber(ARGV[13 + 6 * i])
  if k > 0 then
    local b = 13 + (i - 1) * 6
    confirm(KEYS[4 * i], KEYS[4 * i + 2], from, k, math.ceil(tonumber(ARGV[b + 2]) + tonumber(ARGV[b + 3]) + ask.lease) + 60000)
    from = from + 2 * k
  end
end
local deadline = tonumber(ARGV[5])
if deadline > 0 and now > deadline then return {-2, 0, math.floor(now)} end
local epoch = epochOf(KEYS[1], now)
local fresh = 0
if ask.P > 0 then fresh = seen(ask.procs, ask.proc, ask.stale, ask.grace) end
local limits, cfg, prev = limitsOf(ask.id)
if prev then return {1, tonumber(prev), math.floor(now), unpack(cfg)} end
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
for _, c in ipairs(limits) do grant(c, ask, granted) end
return {1, granted, math.floor(now), unpack(cfg)}
