-- Counts `weight` as sent now, under `id`: for what a process sent that Redis did not grant, or
-- did not count long enough. Counting it now, no earlier than it was sent, only ever over-counts.
local function count(meta, log, used, now, span, id, weight)
  used = expire(meta, log, used, now, span)
  redis.call('ZADD', log, now, id)
  redis.call('HSET', meta, '#' .. id, weight, 'used', used + weight)
  redis.call('PEXPIRE', meta, math.ceil(span) + 60000)
  redis.call('PEXPIRE', log, math.ceil(span) + 60000)
end
