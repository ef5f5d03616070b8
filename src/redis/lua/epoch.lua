--  Reads the epoch, making it now if Redis has none.
local function epochOf(key, now)
  local e = tonumber(redis.call('GET', key))
  if not e then
    redis.call('SET', key, tostring(now))
    return now
  end
  return e
end
