-- Count one race result once in a player's history, and keep the history bounded: the
-- counted set holds only the results of rooms that may still exist, and every key of the
-- history lives `keep` seconds after the player's last race.
-- KEYS: races hash, recent list, counted sorted set.
-- ARGV: ROOM/ROUND, finished (0/1), won (0/1), time_ms, cells, entry JSON, recent, now ms,
-- forget ms (results counted longer ago than this are forgotten), keep seconds.
-- Returns 1, or 0 when that result was counted already.
local now, forget, keep = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - forget)
if redis.call('ZADD', KEYS[3], 'NX', now, ARGV[1]) == 0 then return 0 end
redis.call('HINCRBY', KEYS[1], 'played', 1)
if ARGV[2] == '1' then
  redis.call('HINCRBY', KEYS[1], 'finished', 1)
  local field = 'best:C' .. ARGV[5]
  local best = redis.call('HGET', KEYS[1], field)
  if not best or tonumber(ARGV[4]) < tonumber(best) then
    redis.call('HSET', KEYS[1], field, ARGV[4])
  end
end
if ARGV[3] == '1' then redis.call('HINCRBY', KEYS[1], 'won', 1) end
redis.call('LPUSH', KEYS[2], ARGV[6])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[7]) - 1)
for _, key in ipairs(KEYS) do redis.call('EXPIRE', key, keep) end
return 1
