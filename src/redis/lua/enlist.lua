-- Lists process `proc` in the "q" of limit `c` (see fair.lua) as waiting `weight` until `til`,
-- with its score; a new entry sets the key's expiry.
local function enlist(c, proc, til, weight, score)
  if redis.call('HSET', c.q, proc, til .. ':' .. weight .. ':' .. score .. ':' .. now) == 1 then redis.call('PEXPIRE', c.q, c.ttl) end
end
