-- What every request of ACQUIRE and ACQUIRE_MANY starts from, once per call: the epoch (made now
-- if Redis has none), the process that asks noted as alive (`alive`, once a second: for the adding
-- back after a loss, restore.lua) with, once, the replication id of the Redis it said it to (one
-- that answers with another became master since, a failover, and may lack grants), and as heard
-- of (seen.lua, with local shares). KEYS: the epoch first, the processes alive and the grants lost
-- last. Returns the epoch, how many processes were heard of lately (see seen.lua), when grants
-- were lost while processes alive then have still to add theirs back (else nil): limits in force
-- wait for them (check.lua), and the epoch as text, as replies say it (printed once per call).
local function begin(ask, alive)
  local epoch = epochOf(KEYS[1], now)
  local lostAt, waiting, rid = unpack(redis.call('HMGET', KEYS[#KEYS], 'at', 'n', 'rid'))
  if alive then
    redis.call('ZADD', KEYS[#KEYS - 1], now, ask.proc)
    redis.call('ZREMRANGEBYSCORE', KEYS[#KEYS - 1], '-inf', now - 60000)
    -- Read once: INFO builds its whole text, on every process's every second otherwise.
    if not rid then redis.call('HSET', KEYS[#KEYS], 'rid', replicationId()) end
  end
  if (tonumber(waiting) or 0) > 0 then lostAt = tonumber(lostAt) else lostAt = nil end
  local fresh = 0
  if ask.P > 0 then fresh = seen(ask.procs, ask.proc, ask.stale, ask.grace) end
  return epoch, fresh, lostAt, tostring(epoch)
end
-- Grants permits for one request (`ask`, see acquire.lua) on its limits, all or none, once
-- `begin` ran: the limits are read (limits.lua), a grant under its id already is returned again;
-- then every limit is checked (check.lua), and the process is either listed where it was held back
-- (deny.lua) or granted alike on every limit (grant.lua), with a lease for tasks to come
-- (extra.lua). A process that knew another epoch is told to wait 0 ms: it adds back what it sent
-- (restore.lua) before it is granted more. `text`: the epoch as text (see begin). Returns
-- ACQUIRE's reply (see acquire.lua).
local function admit(ask, epoch, fresh, text)
  local limits, cfg, prev = limitsOf(ask)
  cfg[#cfg + 1] = text
  if prev then return {1, tonumber(prev), math.floor(now), unpack(cfg)} end
  if ask.epoch ~= '' and ask.epoch ~= text then return {0, 0, math.floor(now), unpack(cfg)} end
  local heavy, wait, free = 0, 0, ask.want
  for i, c in ipairs(limits) do
    local ms, most = check(c, ask, epoch, fresh)
    if not ms then heavy = i else wait, free = math.max(wait, ms), math.min(free, most) end
  end
  if heavy > 0 then return {-1, heavy, math.floor(now), unpack(cfg)} end
  if wait > 0 then
    wait = math.ceil(wait)
    deny(limits, ask, wait)
    return {0, wait, math.floor(now), unpack(cfg)}
  end
  local granted = withExtra(limits, ask, math.max(ask.weight, free))
  local probe = 0
  for _, c in ipairs(limits) do
    grant(c, ask, granted)
    if c.probing then probe = 1 end
  end
  cfg[#cfg + 1] = probe
  return {1, granted, math.floor(now), unpack(cfg)}
end
