-- The fair share of the process asking (`ask`, see acquire.lua) on limit `c` while other processes
-- may be waiting on it, read from its "q" (process -> "until:weight waiting:score:instant of the
-- score").
-- A process with more waiting than it is granted says so in "q" until a little after it will ask
-- again, with its score: the weight it was granted while listed, decaying by e every quarter of a
-- window (what it took one window does not weigh on the next). While other processes wait and
-- what all of them want does not fit, a grant goes only to a process whose score is less than one
-- above the least of the others waiting; the others are told to look again when that one is due
-- to ask. Permits freed one by one thus go round the processes one by one, not to whichever
-- process's grants left the window first. An entry whose score has decayed away (10 windows and
-- 10 s), or that cannot be read, is dropped.
-- Notes the asking process's own entry (c.listed, its decayed score in c.score), and c.fair when
-- the share binds. Returns the most the process may be granted on the limit (math.huge: as much
-- as there is room for), and when the process with the least score is due to ask again.
local function fairShare(c, ask)
  local all = redis.call('HGETALL', c.q)
  local demand, least, due, any, gone = 0, math.huge, now, false, {}
  for j = 1, #all, 2 do
    local til, d, v, t = string.match(all[j + 1], '^([^:]*):([^:]*):([^:]*):(.*)$')
    til, d, v, t = tonumber(til), tonumber(d), tonumber(v), tonumber(t)
    local sc = v and t and v * math.exp(4 * (t - now) / c.w)
    if not (til and d and sc) then
      gone[#gone + 1] = all[j]
    elseif all[j] == ask.proc then
      c.listed = true
      c.score = sc
    elseif til >= now then
      any = true
      demand = demand + d
      if sc < least then least, due = sc, til end
    elseif now - t > 10 * c.w + 10000 then
      gone[#gone + 1] = all[j]
    end
  end
  if #gone > 0 then redis.call('HDEL', c.q, unpack(gone)) end
  if any and c.u + ask.queued + demand > c.cap then
    c.fair = true
    return math.floor(least + 1 - c.score) + ask.weight, due
  end
  return math.huge, due
end
