-- Notes process `proc` as heard of now in `procs` (process -> when last heard of), drops those
-- unheard of for `grace` ms and two days, and returns how many were heard of within `stale` ms:
-- the processes AWAY does not count as sending on a local share.
local function seen(procs, proc, stale, grace)
  redis.call('ZADD', procs, now, proc)
  redis.call('ZREMRANGEBYSCORE', procs, '-inf', now - grace - 172800000)
  return redis.call('ZCOUNT', procs, now - stale, '+inf')
end
