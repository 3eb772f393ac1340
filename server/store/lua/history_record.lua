-- Count one race result once in a player's history.
-- KEYS: races hash, recent list, counted set.
-- ARGV: ROOM/ROUND, finished (0/1), won (0/1), time_ms, cells, entry JSON, recent.
-- Returns 1, or 0 when that result was counted already.
if redis.call('SADD', KEYS[3], ARGV[1]) == 0 then return 0 end
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
return 1
