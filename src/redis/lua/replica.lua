-- This Redis's replication id: a promotion of a replica, or a restart, gives it a new one.
local function replicationId()
  return string.match(redis.call('INFO', 'replication'), 'master_replid:(%w+)') or ''
end
