-- Permits of a grant that a process may have sent after their score (its clock, read after the
-- dispatch, was past the lease): moved, in one step, out of the grant to an entry of their own
-- counted from now, so that they count until a window after they were sent. A grant already gone
-- from the log leaves nothing to move: they are counted from now all the same. The weight moved
-- is kept ("~<grant>") for RELEASE, which then sets the grant to what was sent on time, whichever
-- of the two Redis runs first. A repeated id does nothing.
-- `hold`: the grant is held for its answers (see check.lua), and so is the entry.
-- KEYS: meta, log. ARGV: n, w, m, id, weight, grant id, hold (ms), the instant (see instant.lua).
if redis.call('HEXISTS', KEYS[1], '#' .. ARGV[4]) == 1 then return 0 end
local n, w, m, u = config(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
local weight = tonumber(ARGV[5])
local g = tonumber(redis.call('HGET', KEYS[1], '#' .. ARGV[6]))
if g then
  local moved = math.min(g, weight)
  redis.call('HSET', KEYS[1], '#' .. ARGV[6], g - moved)
  redis.call('HINCRBY', KEYS[1], '~' .. ARGV[6], moved)
  u = u - moved
end
count(KEYS[1], KEYS[2], u, now, w + m, ARGV[4], weight, tonumber(ARGV[7]))
return 1
