-- What is granted with a lease for tasks to come: `granted`, and up to `ask.extra` permits more,
-- as many as every limit has room for. None while processes wait their turn on a limit (see
-- fair.lua) or with the one request let through on a limit not known (see check.lua), and with `ask.room` only while the limit stays at most half used, so that it holds
-- back no other process on a limit that binds.
local function withExtra(limits, ask, granted)
  if ask.extra <= 0 then return granted end
  local x = ask.extra
  for _, c in ipairs(limits) do
    if c.fair or c.probing then x = 0 else x = math.min(x, (ask.room and math.floor(c.cap / 2) or c.cap) - c.u - granted) end
  end
  if x > 0 then return granted + x end
  return granted
end
