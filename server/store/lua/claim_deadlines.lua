-- Claim the deadlines that are due. Each is pushed back by a lease rather than removed, so
-- that if the instance acting on it dies, another takes it up once the lease runs out; the
-- instance that acted removes it.
-- KEYS: deadlines (sorted set, scored by due time in ms). ARGV: now, lease ms, limit.
-- Returns the members claimed.
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local until_ms = tonumber(ARGV[1]) + tonumber(ARGV[2])
for _, member in ipairs(due) do redis.call('ZADD', KEYS[1], until_ms, member) end
return due
