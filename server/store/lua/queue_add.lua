-- Put a player in a variant's quick-race queue (the queue's keys share one hash tag).
-- KEYS: wait, info, paired. ARGV: pid, score (their skill mu; a player held back, the
-- held base plus their ready time), info JSON {since, ready, inst, mu}, max waiting, ttl.
-- Returns 'ok', 'already_queued' or 'full'.
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 'already_queued' end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 'full' end
redis.call('HDEL', KEYS[3], ARGV[1])  -- a pairing of an earlier wait, never taken
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
for _, k in ipairs(KEYS) do redis.call('EXPIRE', k, tonumber(ARGV[5])) end
return 'ok'
