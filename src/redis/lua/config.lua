-- Reads a limit's configuration, writing the caller's when Redis has none; with `fields`, reads
-- them too in the same call.
-- Returns n, w, the margin in force, used, pause, the values of `fields` in order, then the late
-- arrival any process measured ("mx", ms) with when it was set ("mxt"), and the configured margin.
-- The margin in force is the configured one ("m"), or "mx" when larger and set within the last
-- max(10 s, 2 w): every grant of the log counts that much longer than w, in every script alike,
-- so a request some process saw arrive that much later than its quickest cannot bring two
-- windows' requests into one at the exchange (see docs/rules.md#r13). A grant confirmed by its own arrivals (see
-- confirm.lua) counts the configured margin beyond them.
local function config(meta, n, w, m, fields)
  fields = fields or {}
  local c = redis.call('HMGET', meta, 'n', 'w', 'm', 'used', 'pause', 'mx', 'mxt', unpack(fields))
  local extra = {}
  for j = 1, #fields do extra[j] = c[7 + j] or false end
  if not c[1] then
    redis.call('HSET', meta, 'n', n, 'w', w, 'm', m, 'used', 0)
    return n, w, m, 0, 0, extra, 0, 0, m
  end
  local cw, m0 = tonumber(c[2]), tonumber(c[3])
  local cm = m0
  local mx, mxt = tonumber(c[6]) or 0, tonumber(c[7]) or 0
  if mx > cm and now - mxt <= math.max(10000, 2 * cw) then cm = mx end
  return tonumber(c[1]), cw, cm, tonumber(c[4]) or 0, tonumber(c[5]) or 0, extra, mx, mxt, m0
end
