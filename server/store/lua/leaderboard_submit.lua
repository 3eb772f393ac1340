-- Take the leaderboard slot of a player's first verified finish of a day; the day's board
-- lives `keep` seconds after its last entry.
-- KEYS: rank zset, entries hash, fewest zset. ARGV: pid, member, score, entry JSON, keep
-- seconds, fewest score (actions, then time).
-- Returns the 1-based rank, or 0 when the player already holds an entry.
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[6], ARGV[2])
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], tonumber(ARGV[5])) end
return redis.call('ZRANK', KEYS[1], ARGV[2]) + 1
