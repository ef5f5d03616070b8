-- A process says it is here (and, coming back from a local share, what it sent on it), unless
-- past its deadline.
-- KEYS: epoch, processes, then meta and log of each limit.
-- ARGV: process, id for the entries, deadline, then per limit: n, w, m, weight sent (counted as
-- sent now, which is no earlier than it was), hold (ms: held for its answers, see check.lua), and
-- last the instant (see instant.lua).
-- Returns {1, now} or {-2, now}.
if tonumber(ARGV[3]) > 0 and now > tonumber(ARGV[3]) then return {-2, math.floor(now)} end
epochOf(KEYS[1], now)
redis.call('ZADD', KEYS[2], now, ARGV[1])
for i = 1, (#KEYS - 2) / 2 do
  local meta, log = KEYS[1 + 2 * i], KEYS[2 + 2 * i]
  local b = 3 + (i - 1) * 5
  local n, w, m, u = config(meta, tonumber(ARGV[b + 1]), tonumber(ARGV[b + 2]), tonumber(ARGV[b + 3]))
  local weight = tonumber(ARGV[b + 4])
  -- A call run again (sent once more after a failover) counts nothing twice.
  if weight > 0 and redis.call('HEXISTS', meta, '#' .. ARGV[2]) == 0 then count(meta, log, u, now, w + m, ARGV[2], weight, tonumber(ARGV[b + 5])) end
end
return {1, math.floor(now)}
