-- Apply one race's rating change to one player, once (the player's keys share a hash tag).
-- KEYS: rating, history, applied, races. ARGV: race id (ROOM/ROUND), now, counts ('1': the
-- rating changes; '0': only the race is recorded), mu, sigma, rating, name, history point
-- JSON, race JSON, max history, max applied, max races, ttl.
-- Returns 1 when applied now, 0 when it was already.
if redis.call('ZSCORE', KEYS[3], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[3], 0, -(tonumber(ARGV[11]) + 1))
if ARGV[3] == '1' then
  redis.call('HSET', KEYS[1], 'mu', ARGV[4], 'sigma', ARGV[5], 'rating', ARGV[6],
    'name', ARGV[7])
  redis.call('HINCRBY', KEYS[1], 'games', 1)
  redis.call('RPUSH', KEYS[2], ARGV[8])
  redis.call('LTRIM', KEYS[2], -tonumber(ARGV[10]), -1)
end
redis.call('LPUSH', KEYS[4], ARGV[9])
redis.call('LTRIM', KEYS[4], 0, tonumber(ARGV[12]) - 1)
for _, k in ipairs(KEYS) do
  if redis.call('EXISTS', k) == 1 then redis.call('EXPIRE', k, tonumber(ARGV[13])) end
end
return 1
