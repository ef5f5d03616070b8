-- Adds back what a process sent that Redis may have lost (a restart, a flush, a failover to a
-- replica that lagged): each of its grants still in a window, under its id, weight and score, as
-- the process kept them (see src/redis/recent-grants.ts), and the latest lateness it measured (kept
-- as acquire.lua keeps it: the grants of the log count that much longer). A grant Redis still holds
-- ("#<id>" in the meta), or whose score is a span or more ago, is left as it is: repeating the call
-- changes nothing. Each limit is then known (see check.lua).
-- On a Redis that became master since the processes said they were alive (a failover: its
-- replication id is not the one they said it to, see acquire.lua), the other processes may have
-- lost grants too, and a grant made before they add them back would not count them: `lost` lists
-- every process alive within the last minute (`alive`) that has not added back on this Redis, and
-- limits in force grant nothing until none is left (check.lua), at most until the grants lost
-- have left the window. Each process's call takes it off the list.
-- KEYS: epoch, alive, lost, then meta and log of each limit. ARGV: the process, then per limit n,
-- w, m, late and how many grants, then each grant's id, weight and score; last the instant (see
-- instant.lua).
-- Returns {the epoch, now}.
local epoch = epochOf(KEYS[1], now)
local alive, lost, proc = KEYS[2], KEYS[3], ARGV[1]
local a = 2
for i = 1, (#KEYS - 3) / 2 do
  local meta, log = KEYS[2 + 2 * i], KEYS[3 + 2 * i]
  local n, w, m, u, _, _, mx, mxt = config(meta, tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]))
  local late, k = tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4])
  a = a + 5
  -- What was sent on the limit is known again: no request needs to go alone (see check.lua).
  redis.call('HSET', meta, 'k', 1)
  if late > mx or (late > 0 and now - mxt > 1000) then
    redis.call('HSET', meta, 'mx', math.max(late, mx), 'mxt', now)
    if late > m then m = late end
  end
  local span = w + m
  local added = 0
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
local replid = replicationId()
local rid = redis.call('HGET', lost, 'rid')
redis.call('ZADD', alive, now, proc)
redis.call('ZREMRANGEBYSCORE', alive, '-inf', now - 60000)
if redis.call('HDEL', lost, 'p:' .. proc) == 1 then redis.call('HINCRBY', lost, 'n', -1) end
redis.call('HSET', lost, 'r:' .. proc, replid)
if rid and rid ~= replid then
  -- This Redis became master after the processes said they were alive (a failover): list those
  -- alive then that have not added back on it; forget the processes no longer alive.
  local living = {}
  for _, p in ipairs(redis.call('ZRANGEBYSCORE', alive, now - 60000, '+inf')) do living[p] = true end
  for _, f in ipairs(redis.call('HKEYS', lost)) do
    local kind = string.sub(f, 1, 2)
    if kind == 'p:' or (kind == 'r:' and not living[string.sub(f, 3)]) then redis.call('HDEL', lost, f) end
  end
  local set, waiting = {'at', now, 'rid', replid}, 0
  for p in pairs(living) do
    if p ~= proc and redis.call('HGET', lost, 'r:' .. p) ~= replid then
      set[#set + 1] = 'p:' .. p
      set[#set + 1] = 1
      waiting = waiting + 1
    end
  end
  set[#set + 1] = 'n'
  set[#set + 1] = waiting
  redis.call('HSET', lost, unpack(set))
end
return {tostring(epoch), math.floor(now)}
