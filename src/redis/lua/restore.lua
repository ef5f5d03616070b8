-- Adds back what a process sent that Redis may have lost (a restart, a flush, a failover to a
-- replica that lagged): each of its grants still in a window, under its id, weight and score, as
-- the process kept them (see src/redis/recent-grants.ts). A grant Redis still holds ("#<id>" in the
-- meta), or whose score is a span or more ago, is left as it is: repeating the call changes nothing.
-- Each limit is then known (see check.lua).
-- KEYS: epoch, then meta and log of each limit. ARGV: per limit n, w, m and how many grants, then
-- each grant's id, weight and score; last the instant (see instant.lua).
-- Returns {the epoch, now}.
local epoch = epochOf(KEYS[1], now)
local a = 1
for i = 1, (#KEYS - 1) / 2 do
  local meta, log = KEYS[2 * i], KEYS[2 * i + 1]
  local n, w, m, u = config(meta, tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]))
  local k = tonumber(ARGV[a + 3])
  a = a + 4
  local span = w + m
  local added = 0
  -- What was sent on the limit is known again: no request needs to go alone (see check.lua).
  redis.call('HSET', meta, 'k', 1)
  for j = 1, k do
    local id, weight, score = ARGV[a], tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
    a = a + 3
    if score + span > now and redis.call('HEXISTS', meta, '#' .. id) == 0 then
      redis.call('ZADD', log, score, id)
      redis.call('HSET', meta, '#' .. id, weight)
      added = added + weight
    end
  end
  if added > 0 then
    redis.call('HSET', meta, 'used', u + added)
    redis.call('PEXPIRE', meta, math.ceil(span) + 60000)
    redis.call('PEXPIRE', log, math.ceil(span) + 60000)
  end
end
return {tostring(epoch), math.floor(now)}
