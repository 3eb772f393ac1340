-- Put a player in a variant's quick-race queue (every variant's queue keys share one hash
-- tag, so that a player waits in one queue at most, whichever instances their sockets use).
-- KEYS: wait, info, paired, then the other variants' wait sets. ARGV: pid, score (their
-- skill mu; a player held back, the held base plus their ready time), info JSON {since,
-- ready, inst, mu}, max waiting, ttl.
-- Returns 'ok', 'already_queued' (in this queue or another) or 'full'.
for i, k in ipairs(KEYS) do
  if (i == 1 or i > 3) and redis.call('ZSCORE', k, ARGV[1]) then return 'already_queued' end
end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 'full' end
redis.call('HDEL', KEYS[3], ARGV[1])  -- a pairing of an earlier wait, never taken
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], tonumber(ARGV[5])) end
return 'ok'
