-- What a process measured of the way to the exchange on one limit, told without asking for
-- permits (it asks for none soon): the latest arrival it measured lately (kept as "mx" as ACQUIRE
-- keeps it, see limits.lua) and its grants confirmed by their arrivals (see confirm.lua).
-- KEYS: meta, log, arrived. ARGV: n, w, m, late (ms), lease (ms), k, then k pairs of a grant id
-- and its arrival, and last the instant (see instant.lua).
local n, w, m, u, pause, _, mx, mxt = config(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
local late = tonumber(ARGV[4])
if late > 0 and (late > mx or now - mxt > (late == mx and 1000 or math.max(10000, 2 * w))) then
  redis.call('HSET', KEYS[1], 'mx', late, 'mxt', now)
end
local k = tonumber(ARGV[6])
if k > 0 then confirm(KEYS[2], KEYS[3], 7, k, math.ceil(w + math.max(m, late) + tonumber(ARGV[5])) + 60000) end
return 1
