-- How long until `need` of the weight counted on limit `c` has left its window, ms, as its log
-- says (the earliest grants first); nil when the log holds less: what binds is then a share
-- held for processes away.
local function freedIn(c, need)
  if need > c.u then return nil end
  local entries = redis.call('ZRANGE', c.log, 0, -1, 'WITHSCORES')
  local ids = {}
  for j = 1, #entries, 2 do ids[#ids + 1] = '#' .. entries[j] end
  local ws = redis.call('HMGET', c.meta, unpack(ids))
  local freed = 0
  for j = 1, #ws do
    freed = freed + (tonumber(ws[j]) or 0)
    if freed >= need then return tonumber(entries[2 * j]) + c.span - now end
  end
  return nil
end
