-- Lists the process asking (`ask`, see acquire.lua), denied for `wait` ms, as waiting all it has
-- queued in the "q" of the limits that held it back, not of those that had room for it: it
-- competes on those only when it asks again. It is listed until `ask.lease` + 50 ms after it is
-- due to ask again, and each of those limits says some process may be waiting until then ("qt").
local function deny(limits, ask, wait)
  local til = math.ceil(now + wait + ask.slack)
  for _, c in ipairs(limits) do
    if c.held then
      enlist(c, ask.proc, til, ask.queued, c.score)
      if til > c.qt then redis.call('HSET', c.meta, 'qt', til) end
    end
  end
end
