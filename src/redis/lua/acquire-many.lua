-- Grants permits for several tasks of one process on a budget in one call: each request as
-- ACQUIRE grants it (acquire.lua), all or none on its own limits, independently of the others.
-- KEYS and ARGV are laid out by `encodeAcquireMany` in src/redis/calls.ts: KEYS the epoch and the
-- processes, each request's limits' keys (four per limit), then the processes alive and the grants
-- lost; ARGV how many requests, what they share (the process, the processes sharing the budget
-- when Redis is down, stale and grace ms, the N at which a limit is not in force, the lease, the
-- deadline, whether the process says it is alive, the longest lease a grant may carry), each
-- request's own (its id, weight, want, extra, room, queued, the epoch it knows, how many limits,
-- then seven per limit as ACQUIRE's, then the grants it confirms), and the instant.
-- Returns one ACQUIRE reply per request, in order; past the deadline, {-2, 0, now} for each
-- (nothing done but the confirmations, as ACQUIRE).
local shared = {
  proc = ARGV[2], P = tonumber(ARGV[3]), stale = tonumber(ARGV[4]), grace = tonumber(ARGV[5]),
  unlimited = tonumber(ARGV[6]), lease = tonumber(ARGV[7]), procs = KEYS[2], leaseMax = tonumber(ARGV[10]),
}
local asks, a, kb = {}, 11, 3
for r = 1, tonumber(ARGV[1]) do
  local nl = tonumber(ARGV[a + 7])
  local ask = {
    id = ARGV[a], weight = tonumber(ARGV[a + 1]), want = tonumber(ARGV[a + 2]), extra = tonumber(ARGV[a + 3]),
    room = ARGV[a + 4] == '1', epoch = ARGV[a + 6], nl = nl, kb = kb, lb = a + 8, cb = a + 8 + 7 * nl,
    proc = shared.proc, P = shared.P, stale = shared.stale, grace = shared.grace, unlimited = shared.unlimited,
    lease = shared.lease, leaseMax = shared.leaseMax, procs = shared.procs, slack = shared.lease + 50,
  }
  ask.queued = math.max(tonumber(ARGV[a + 5]), ask.weight)
  a = confirmAll(ask)
  kb = kb + 4 * nl
  asks[r] = ask
end
local replies = {}
local deadline = tonumber(ARGV[8])
if deadline > 0 and now > deadline then
  for r = 1, #asks do replies[r] = {-2, 0, math.floor(now)} end
  return replies
end
local epoch, fresh, lostAt, text = begin(shared, ARGV[9] == '1')
for r, ask in ipairs(asks) do
  ask.lostAt = lostAt
  replies[r] = admit(ask, epoch, fresh, text)
end
return replies
