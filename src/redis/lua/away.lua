-- Counts the processes of a prefix that may be sending on a local share now: seen within the
-- horizon but not within `stale` ms (their Redis is unreachable), and, while the epoch is younger
-- than the horizon (Redis new or restarted), those of the `P` not seen at all.
local function away(procs, now, epoch, P, fresh, horizon)
  local seen = redis.call('ZCOUNT', procs, now - horizon, '+inf')
  local a = seen - fresh
  if now - epoch < horizon then a = math.max(a, P - fresh) end
  return math.max(a, 0)
end
