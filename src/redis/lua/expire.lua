-- Drops grants that left the window, with what LATE moved out of them ("~<id>"); returns the
-- weight still in it. Grants are dropped lazily (see check.lua): the weight counted may include
-- some that left, which only ever over-counts.
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
