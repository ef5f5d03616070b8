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
-- In order: confirmed grants move (confirm.lua), past its deadline nothing more is done; then
-- what every request starts from (admit.lua: the epoch, the process noted as alive and heard of,
-- the grants lost) and the request itself (admit.lua).
--
-- The request, ask: ARGV by name (the deadline aside), the processes' key (procs), queued (at
-- least the weight) and slack, how long after it is due to ask again a process waiting stays
-- listed (lease + 50 ms); where its limits' KEYS (kb) and ARGV (lb) start, how many (nl), and
-- where the grants it confirms start (cb).
local ask = {
  id = ARGV[1], weight = tonumber(ARGV[2]), want = tonumber(ARGV[3]), lease = tonumber(ARGV[4]), proc = ARGV[6],
  P = tonumber(ARGV[7]), stale = tonumber(ARGV[8]), grace = tonumber(ARGV[9]), extra = tonumber(ARGV[10]),
  room = ARGV[11] == '1', unlimited = tonumber(ARGV[13]), procs = KEYS[2],
  leaseMax = tonumber(ARGV[14]), nl = (#KEYS - 4) / 4, kb = 3, lb = 15,
}
ask.queued = math.max(tonumber(ARGV[12]), ask.weight)
ask.epoch = ARGV[#ARGV - 1]
ask.slack = ask.lease + 50
ask.cb = 15 + 7 * ask.nl
confirmAll(ask)
local deadline = tonumber(ARGV[5])
if deadline > 0 and now > deadline then return {-2, 0, math.floor(now)} end
local epoch, fresh, lostAt, text = begin(ask, ARGV[#ARGV - 2] == '1')
ask.lostAt = lostAt
return admit(ask, epoch, fresh, text)
