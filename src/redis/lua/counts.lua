-- Writes a batch of counts (an account's requests and fills per day, contract and hour) and reads
-- the totals back, in one step. A batch is a process's counts since its last one: numbered in
-- order per process, so a batch sent again (its answer lost) counts once; or history written once
-- under an id, whichever process writes it. Nothing is written when the process counted on data
-- Redis has lost since (the epoch differs): the process writes its own counts again whole.
-- KEYS: epoch, batch numbers, the once key (or the epoch again), the keys written, the keys read.
-- ARGV: process, batch number (0: none), epoch the process knows ('': none), 'add', 'absent'
-- (write only keys that do not exist) or 'merge' (seeded history: a key's fields marked '=' are
-- replaced by those written, increments taken as values, when the rank written in field '=' is
-- higher than the one held; texts of digits of one length), once (1: the third key must be new),
-- keys written, keys read, the last batch number of the process Redis said it held, then per key
-- written: time to live (ms), fields, field, increment, ..., and last the instant (see
-- instant.lua).
-- Nothing is written either when Redis holds a lower last batch number for the process than it
-- said it did: it lost batches it had taken (a failover to a replica that lagged), which the
-- process sends again first.
-- Returns {status (1 written, 0 written before, -3 epoch changed, -4 batches lost), epoch, last
-- batch number of the process, then each key read as field, value, ...}.
local raw = redis.call('GET', KEYS[1])
if not raw then
  raw = tostring(instant())
  redis.call('SET', KEYS[1], raw)
end
local nw, nr = tonumber(ARGV[6]), tonumber(ARGV[7])
local status = 1
local held = tonumber(redis.call('HGET', KEYS[2], ARGV[1])) or 0
if ARGV[3] ~= '' and ARGV[3] ~= raw then
  status = -3
elseif held < tonumber(ARGV[8]) then
  status = -4
else
  local seq = tonumber(ARGV[2])
  if seq > 0 then
    if seq <= held then status = 0 else
      redis.call('HSET', KEYS[2], ARGV[1], seq)
      redis.call('PEXPIRE', KEYS[2], 93600000)
    end
  end
  if status == 1 and ARGV[5] == '1' and not redis.call('SET', KEYS[3], 1, 'NX', 'PX', 777600000) then status = 0 end
  if status == 1 then
    local a = 9
    for i = 1, nw do
      local key = KEYS[3 + i]
      local n = tonumber(ARGV[a + 1])
      if ARGV[4] == 'merge' then
        local rank = false
        for j = 1, n do if ARGV[a + 2 * j] == '=' then rank = ARGV[a + 2 * j + 1] end end
        local held = redis.call('HGET', key, '=')
        if rank and (not held or rank > held) then
          local old = {}
          for _, f in ipairs(redis.call('HKEYS', key)) do
            if string.sub(f, 1, 1) == '=' then old[#old + 1] = f end
          end
          if #old > 0 then redis.call('HDEL', key, unpack(old)) end
          for j = 1, n do redis.call('HSET', key, ARGV[a + 2 * j], ARGV[a + 2 * j + 1]) end
          redis.call('PEXPIRE', key, ARGV[a])
        end
      elseif ARGV[4] == 'add' or redis.call('EXISTS', key) == 0 then
        for j = 1, n do redis.call('HINCRBY', key, ARGV[a + 2 * j], ARGV[a + 2 * j + 1]) end
        redis.call('PEXPIRE', key, ARGV[a])
      end
      a = a + 2 + 2 * n
    end
  end
end
local out = {status, raw, tonumber(redis.call('HGET', KEYS[2], ARGV[1])) or 0}
for i = 1, nr do out[#out + 1] = redis.call('HGETALL', KEYS[3 + nw + i]) end
return out
