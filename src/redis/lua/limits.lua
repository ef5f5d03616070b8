-- Reads the configuration of every limit of request `ask` (its `ask.nl` limits' KEYS from
-- `ask.kb`, four per limit, and their ARGV from `ask.lb`, seven per limit: see encodeAcquire and
-- encodeAcquireMany in src/redis/calls.ts), in the same call as whether grant `ask.id` was made
-- already, when the limit's keys were last set to expire ("x"), when grants that left the window
-- were last dropped ("e"), and until when some process may be waiting ("qt"). What only a Redis
-- new or restarted, or grants lost, make matter is read by check.lua when it does (see knownOf).
-- The latest arrival sent is kept ("mx", "mxt") when larger, or when the one kept is out of its
-- time; the same one is kept again once a second at most, so that it stays in force while
-- measured, at no call on most grants. The margin in force includes it at once.
-- Returns the limits (tables of the keys meta, log, q and arrived, and n, w, m, m0 (the configured
-- margin), u (used), pause, reserved, hold (how long past its lease a grant is held for answers,
-- ms), x, e, qt, score = 0), their N and W as ACQUIRE replies them (n1, w1, ...), and the weight
-- of grant `ask.id` when it was made already (else false).
local function limitsOf(ask)
  local limits, cfg, prev = {}, {}, false
  for i = 1, ask.nl do
    local k = ask.kb + 4 * (i - 1)
    local meta = KEYS[k]
    local b = ask.lb - 1 + 7 * (i - 1)
    local n, w, m, u, pause, f, mx, mxt, m0 = config(meta, tonumber(ARGV[b + 1]), tonumber(ARGV[b + 2]), tonumber(ARGV[b + 3]), {'#' .. ask.id, 'x', 'e', 'qt'})
    local late = tonumber(ARGV[b + 5])
    if late > 0 and (late > mx or now - mxt > (late == mx and 1000 or math.max(10000, 2 * w))) then
      redis.call('HSET', meta, 'mx', late, 'mxt', now)
      if late > m then m = late end
    end
    limits[i] = {
      meta = meta, log = KEYS[k + 1], q = KEYS[k + 2], arrived = KEYS[k + 3], n = n, w = w, m = m, m0 = m0, u = u, pause = pause,
      reserved = tonumber(ARGV[b + 4]), hold = tonumber(ARGV[b + 7]), x = tonumber(f[2]) or 0, e = tonumber(f[3]) or 0, qt = tonumber(f[4]) or 0, score = 0,
    }
    if f[1] then prev = f[1] end
    cfg[#cfg + 1] = n; cfg[#cfg + 1] = w
  end
  return limits, cfg, prev
end
-- What limit `c` says of what is known of it, read only where it matters (check.lua): whether a
-- process knows what was sent on it since the epoch ("k"), when the exchange's count last came
-- back ("kx"), and the one request let through before that, granted and not given back ("pr",
-- its id, granted at "pt"). Sets c.known, c.counted, c.probe and c.probeAt.
local function knownOf(c)
  local f = redis.call('HMGET', c.meta, 'k', 'kx', 'pr', 'pt')
  c.known, c.counted, c.probe, c.probeAt = f[1] ~= false, tonumber(f[2]) or -1, f[3] ~= false, tonumber(f[4]) or 0
end
