-- Ends a grant on one limit: what was sent of it (`sent`) stays counted, the rest is given back.
-- What LATE moved out of it is counted by an entry of its own, and left out here. Setting, not
-- subtracting, makes a repeated call harmless. A grant given back whole that was the one request
-- let through on a limit not known ("pr", see check.lua) lets another through.
-- KEYS: meta, log. ARGV: id, sent.
local g = tonumber(redis.call('HGET', KEYS[1], '#' .. ARGV[1]))
if not g then return 0 end
local sent = tonumber(ARGV[2]) - (tonumber(redis.call('HGET', KEYS[1], '~' .. ARGV[1])) or 0)
if sent >= g then return 0 end
if sent <= 0 then
  redis.call('HDEL', KEYS[1], '#' .. ARGV[1], '~' .. ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  -- The one request let through on a limit not known was not sent: another may go (check.lua).
  if redis.call('HGET', KEYS[1], 'pr') == ARGV[1] then redis.call('HDEL', KEYS[1], 'pr') end
else
  redis.call('HSET', KEYS[1], '#' .. ARGV[1], sent)
end
local used = (tonumber(redis.call('HGET', KEYS[1], 'used')) or 0) - (g - sent)
if used < 0 then used = 0 end
redis.call('HSET', KEYS[1], 'used', used)
return g - sent
