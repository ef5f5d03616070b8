-- Drops grants that left the window, with what LATE moved out of them ("~<id>"); returns the
-- weight still in it. The log's grants leave `span` after their score; with `arrived` (the
-- grants confirmed by their arrivals, see confirm.lua), those leave `arrivedSpan` after theirs.
-- Grants are dropped lazily (see check.lua): the weight counted may include some that left, which
-- only ever over-counts.
local function expire(meta, log, used, now, span, arrived, arrivedSpan)
  local u, gone = dropBefore(meta, log, used, now - span)
  if arrived then
    local more
    u, more = dropBefore(meta, arrived, u, now - arrivedSpan)
    gone = gone or more
  end
  if not gone then return used end
  if u < 0 then u = 0 end
  redis.call('HSET', meta, 'used', u)
  return u
end
