-- The instant this script runs at (see instant.lua).
local now = instant()
