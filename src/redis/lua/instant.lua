-- The instant, ms: the last ARGV when the caller gives one (a test on a virtual clock), else
-- Redis's clock (TIME), the one clock every process shares. A store gives '' (none).
local function instant()
  local given = tonumber(ARGV[#ARGV])
  if given then return given end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
end
