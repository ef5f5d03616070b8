-- What the exchange said (see docs/rules.md#r12), for every process: a pause of `pause` ms from now, and a hold
-- of `hold` weight for `holdMs` ms (headers saying fewer remain than counted).
-- With `counted` (ARGV 8, '1'), the hold is the exchange's count of the window at its answer
-- (see docs/rules.md#r17): the limit is known from then on ("k", and "kx" the instant), and a Redis that lost what
-- was sent on it lets every process ask again (see check.lua).
-- The count is known from when its process read the answer that stated it (ARGV 9, on Redis's
-- clock, at most now; '' for now): one read before grants were lost, run late (sent again across
-- a failover), leaves the limit waiting for them (see check.lua).
-- KEYS: meta, log, arrived (see confirm.lua). ARGV: n, w, m, pause ms, hold weight, hold ms, hold
-- id, counted, counted at, the instant (see instant.lua).
local n, w, m, u, pause, _, _, _, m0 = config(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
local span = w + m
local p = tonumber(ARGV[4])
if p > 0 and now + p > pause then redis.call('HSET', KEYS[1], 'pause', now + p) end
local hold, holdMs = tonumber(ARGV[5]), tonumber(ARGV[6])
-- A call run again (a client sends it once more after a failover, its first run's answer lost)
-- holds nothing more: the hold's entry is there already, and writing it over would leave its
-- first weight counted with no entry to drop it.
if hold > 0 and holdMs > 0 and redis.call('HEXISTS', KEYS[1], '#' .. ARGV[7]) == 0 then
  u = expire(KEYS[1], KEYS[2], u, now, span, KEYS[3], w + m0)
  local extra = math.min(hold, n) - u
  if extra > 0 then
    redis.call('ZADD', KEYS[2], now + holdMs - span, ARGV[7])
    redis.call('HSET', KEYS[1], '#' .. ARGV[7], extra, 'used', u + extra)
  end
end
if ARGV[8] == '1' then
  local kx = tonumber(ARGV[9]) or now
  if kx > now then kx = now end
  redis.call('HSET', KEYS[1], 'k', 1, 'kx', kx)
end
local ttl = math.ceil(span + math.max(p, holdMs)) + 60000
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
return 1
