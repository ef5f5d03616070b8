-- Drops the grants of sorted set `set` scored at or before `before`, with what LATE moved out of
-- them ("~<id>"), from the weight `used`; returns the weight left and whether any was dropped.
local function dropBefore(meta, set, used, before)
  local old = redis.call('ZRANGEBYSCORE', set, '-inf', before)
  if #old == 0 then return used, false end
  for i = 1, #old, 500 do
    local ids = {}
    for j = i, math.min(i + 499, #old) do ids[#ids + 1] = '#' .. old[j] end
    local ws = redis.call('HMGET', meta, unpack(ids))
    for j = 1, #ws do used = used - (tonumber(ws[j]) or 0) end
    for j = i, math.min(i + 499, #old) do ids[#ids + 1] = '~' .. old[j] end
    redis.call('HDEL', meta, unpack(ids))
  end
  redis.call('ZREMRANGEBYSCORE', set, '-inf', before)
  return used, true
end
