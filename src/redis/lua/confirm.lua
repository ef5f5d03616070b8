-- Grants whose process heard the answer to every permit it sent on them (see docs/rules.md#r13): KEYS `log` and
-- `arrived` of one limit, and from ARGV[`from`] `k` pairs of a grant id and the latest arrival at
-- the exchange of its permits, as a Redis instant no earlier than it. A grant still in the log
-- (counted until its score, the end of its lease, plus W and the margin in force, which includes
-- the latest lateness any process measured) moves to "arrived", scored by that arrival: it counts
-- until the arrival plus W and the configured margin. One in "arrived" already moves only later
-- (its arrival counted again once a quicker way there showed); one gone from both (it left the
-- window, or was given back) stays gone. Repeating a pair changes nothing. `ttl`: the expiry the
-- key is given, ms.
local function confirm(log, arrived, from, k, ttl)
  for j = from, from + 2 * k - 1, 2 do
    local id, at = ARGV[j], tonumber(ARGV[j + 1])
    if redis.call('ZREM', log, id) == 1 then
      redis.call('ZADD', arrived, at, id)
    else
      redis.call('ZADD', arrived, 'XX', 'GT', at, id)
    end
  end
  redis.call('PEXPIRE', arrived, ttl)
end
-- Moves the grants request `ask` confirms on each of its limits (their count is the sixth of
-- each limit's ARGV, the pairs from `ask.cb`: see limits.lua); returns the ARGV index after them.
local function confirmAll(ask)
  local from = ask.cb
  for i = 1, ask.nl do
    local b = ask.lb - 1 + 7 * (i - 1)
    local k = tonumber(ARGV[b + 6])
    if k > 0 then
      local keys = ask.kb + 4 * (i - 1)
      confirm(KEYS[keys + 1], KEYS[keys + 3], from, k, math.ceil(tonumber(ARGV[b + 2]) + tonumber(ARGV[b + 3]) + ask.lease) + 60000)
      from = from + 2 * k
    end
  end
  return from
end
