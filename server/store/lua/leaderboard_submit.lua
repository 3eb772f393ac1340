-- Take the leaderboard slot of a player's first verified finish of a day.
-- KEYS: rank zset, entries hash. ARGV: pid, member, score, entry JSON.
-- Returns the 1-based rank, or 0 when the player already holds an entry.
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
return redis.call('ZRANK', KEYS[1], ARGV[2]) + 1
