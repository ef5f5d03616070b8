-- Records a grant of `granted` to the process asking (`ask`, see acquire.lua) on limit `c`: in
-- its log, scored now plus the lease (and the hold: see check.lua), and in its meta ("#<id>", "used", "x", "e" when grants
-- were dropped, "pr" its id when it is the one request let through on a limit not known). A process granted less than it has waiting stays listed in "q" as waiting the
-- rest, until `ask.lease` + 50 ms from now; one listed that is granted all it waits for stays in
-- "q", not waiting, with its score.
-- A limit whose requests are followed to their answers (`c.hold` > 0: arrivals bounded by answers,
-- see docs/rules.md#r13) holds the grant `c.hold` ms longer: until its process confirms it from their answers
-- (confirm.lua), however long that process is held up or cut off from Redis, at most that long.
-- The keys' expiry is set again when it is 10 s old, or when the log may be new (nothing was
-- counted): they expire 50 to 60 s after their last write, at two calls fewer per grant.
-- The score is rounded up to a whole ms (counted at most 1 ms longer), and the instants kept in
-- the meta are whole ms: Redis keeps a small log's integer scores as integers, where a fraction
-- costs it a number printed on every ZADD and parsed again for every entry each ZADD passes.
local function grant(c, ask, granted)
  redis.call('ZADD', c.log, math.ceil(now + ask.lease + c.hold), ask.id)
  local x = c.x
  if c.u == 0 or now + c.ttl - x > 10000 then
    x = math.floor(now) + c.ttl
    redis.call('PEXPIRE', c.meta, c.ttl)
    redis.call('PEXPIRE', c.log, c.ttl)
    redis.call('PEXPIRE', c.q, c.ttl)
  end
  local set = {'#' .. ask.id, granted, 'used', c.u + granted, 'x', x}
  if c.swept then set[#set + 1] = 'e'; set[#set + 1] = math.floor(now) end
  if c.probing then
    set[#set + 1] = 'pr'; set[#set + 1] = ask.id
    set[#set + 1] = 'pt'; set[#set + 1] = now
  end
  local score = c.score + granted
  local more = ask.queued - granted
  if more > 0 then
    local til = math.ceil(now + ask.slack)
    enlist(c, ask.proc, til, more, score)
    set[#set + 1] = 'qt'; set[#set + 1] = math.max(c.qt, til)
  elseif c.listed then
    redis.call('HSET', c.q, ask.proc, '0:0:' .. score .. ':' .. now)
  end
  redis.call('HSET', c.meta, unpack(set))
end
