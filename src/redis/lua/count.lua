-- Counts `weight` as sent now, under `id`: for what a process sent that Redis did not grant, or
-- did not count long enough. Counting it now, no earlier than it was sent (rounded up to a whole
-- ms, see grant.lua), only ever over-counts.
-- `hold` (ms, 0: none): its requests await their answers, and it is held that much longer, as a
-- grant is (see check.lua), until the process confirms it.
local function count(meta, log, used, now, span, id, weight, hold)
  hold = hold or 0
  used = expire(meta, log, used, now, span)
  redis.call('ZADD', log, math.ceil(now + hold), id)
  redis.call('HSET', meta, '#' .. id, weight, 'used', used + weight)
  redis.call('PEXPIRE', meta, math.ceil(span + hold) + 60000)
  redis.call('PEXPIRE', log, math.ceil(span + hold) + 60000)
end
