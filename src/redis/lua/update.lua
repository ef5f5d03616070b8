-- A new N and W for every process (see docs/rules.md#r13: what was sent in the trailing window counts at once).
-- KEYS: meta. ARGV: n, w, m.
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'n', ARGV[1], 'w', ARGV[2], 'm', ARGV[3], 'used', 0)
  redis.call('PEXPIRE', KEYS[1], math.ceil(tonumber(ARGV[2]) + tonumber(ARGV[3])) + 60000)
else
  redis.call('HSET', KEYS[1], 'n', ARGV[1], 'w', ARGV[2], 'm', ARGV[3])
end
return 1
