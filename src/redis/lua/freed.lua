-- How long until `need` of the weight counted on limit `c` has left its window, ms, as its logs
-- say (the earliest to leave first: a grant of the log `c.span` after its score, one confirmed by
-- its arrivals `c.aspan` after its own); nil when they hold less: what binds is then a share held
-- for processes away. A grant held for its answers (scored more than `poll` ms ahead, see
-- grant.lua) leaves once its process confirms it, which may be at any moment: where one is needed,
-- at most `poll` ms.
local function freedIn(c, need, poll)
  if need > c.u then return nil end
  local a = redis.call('ZRANGE', c.log, 0, -1, 'WITHSCORES')
  local b = redis.call('ZRANGE', c.arrived, 0, -1, 'WITHSCORES')
  local ids = {}
  for j = 1, #a, 2 do ids[#ids + 1] = '#' .. a[j] end
  for j = 1, #b, 2 do ids[#ids + 1] = '#' .. b[j] end
  if #ids == 0 then return nil end
  local ws = redis.call('HMGET', c.meta, unpack(ids))
  local na, nb = #a / 2, #b / 2
  local i, j, freed, held = 1, 1, 0, false
  while i <= na or j <= nb do
    local ea = i <= na and tonumber(a[2 * i]) + c.span or math.huge
    local eb = j <= nb and tonumber(b[2 * j]) + c.aspan or math.huge
    local w, e
    if ea <= eb then
      if ea - c.span > now + poll then held = true end
      w, e, i = ws[i], ea, i + 1
    else
      w, e, j = ws[na + j], eb, j + 1
    end
    freed = freed + (tonumber(w) or 0)
    if freed >= need then
      if held and e - now > poll then return poll end
      return e - now
    end
  end
  return nil
end
