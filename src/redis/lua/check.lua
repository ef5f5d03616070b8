-- Checks limit `c` (see limits.lua) for the process asking (`ask`, see acquire.lua): its room is N
-- less what is reserved from this priority, and with local shares (`ask.P` > 0) less the shares
-- of the processes AWAY counts.
-- A Redis new, restarted or flushed (its epoch younger than the limit's span and the longest
-- lease) does not know what was sent on a limit in force (N below `ask.unlimited`) before: until a
-- process knows it (one added back what it sent, restore.lua, or the exchange's count came back,
-- feedback.lua), it lets one request through alone (`c.probing`), whose answer states the
-- exchange's count, and holds the others back, looking again every `ask.slack` ms; at most until
-- the epoch is a span and the longest lease old (`ask.leaseMax`), when everything granted before
-- has left the window (see docs/rules.md#r17). After grants were lost
-- (`ask.lostAt`, see restore.lua) a limit in force does the same until every process alive then
-- has added its own back, or the exchange's count came back after the loss. A limit not in force
-- has nothing the exchange counts. A pause holds a limit back until its end.
-- Grants that left the window are dropped when it matters (what waits may not fit counting them,
-- others wait), else every span or 250 ms, whichever is shorter (so that one drop never holds
-- Redis up for long): most grants save four calls.
-- A process held back for another (see fair.lua) looks again when that one is due to have asked;
-- one denied for room when Redis says enough will have left the window (see freed.lua), or after
-- `ask.stale` when shares held for processes away may free first.
-- Sets on `c` span (the log's grants count that long after their score), aspan (those confirmed
-- by their arrivals, after theirs), ttl (the keys' expiry, ms), cap (its room), u (the weight counted, after a
-- drop), swept (grants were dropped), held (it holds the process back), probing (the grant is
-- the one request let through on a limit not known). Returns false when the
-- weight can never fit the limit; else how long the process must wait, ms (0: none), and the
-- most it may be granted on the limit (math.huge while it waits).
local function check(c, ask, epoch, fresh)
  c.span = c.w + c.m
  c.aspan = c.w + c.m0
  c.ttl = math.ceil(c.span + ask.lease + c.hold) + 60000
  local cap = c.n - c.reserved
  if ask.weight > cap then return false end
  if ask.P > 0 then cap = cap - math.min(c.n, away(ask.procs, now, epoch, ask.P, fresh, ask.grace + 2 * c.span) * math.floor(c.n / ask.P)) end
  c.cap = cap
  if c.pause > now then
    c.held = true
    return c.pause - now, math.huge
  end
  -- Grants lost (a failover to a replica that lagged): processes alive then have not all added
  -- theirs back yet, and the exchange's count has not come back since; at most until those grants
  -- have left the window.
  -- Either matters only for a limit in force while grants are lost, or while the epoch is younger
  -- than a span and the longest lease: only then is what is known of the limit read (knownOf).
  local lost, unknown = 0, 0
  -- A grant made before the loss may be sent on up to the longest lease after it (ask.leaseMax).
  if c.n < ask.unlimited and (ask.lostAt or epoch + c.span + ask.leaseMax > now) then
    knownOf(c)
    lost = ask.lostAt and not (c.counted >= ask.lostAt) and ask.lostAt + c.span + ask.leaseMax or 0
    unknown = not c.known and epoch + c.span + ask.leaseMax or 0
  end
  local since, til = epoch, unknown
  if lost > now then since, til = ask.lostAt, math.max(lost, unknown) end
  if til > now then
    if c.probe and c.probeAt >= since then
      c.held = true
      return math.min(til - now, ask.slack), math.huge
    end
    c.probing = true
  end
  local others = c.qt >= now
  if c.u + ask.want > cap or others or now - c.e >= math.min(c.span, 250) then
    c.u = expire(c.meta, c.log, c.u, now, c.span, c.arrived, c.aspan)
    c.swept = true
  end
  local fair, due = math.huge, now
  if others then fair, due = fairShare(c, ask) end
  if fair < ask.weight then
    c.held = true
    return math.max(due - ask.slack - now, 2), math.huge
  end
  if c.u + ask.weight > cap then
    c.held = true
    return freedIn(c, c.u + ask.weight - cap, ask.slack) or ask.stale, math.huge
  end
  if c.probing then return 0, ask.weight end
  return 0, math.min(cap - c.u, fair)
end
