-- Record one race of an arena, once, and free its racers of it.
-- KEYS: counted, results, racing. ARGV: the race (ROOM/ROUND), its record JSON, the room,
-- the keys' end (ms), then the racers' ids.
-- An empty record frees the racers of a race that never ran (nobody came) and keeps none.
-- Returns 1 when this call recorded it, 0 when it was recorded already.
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return 0 end
if ARGV[2] ~= '' then redis.call('RPUSH', KEYS[2], ARGV[2]) end
for i = 5, #ARGV do
  if redis.call('HGET', KEYS[3], ARGV[i]) == ARGV[3] then redis.call('HDEL', KEYS[3], ARGV[i]) end
end
for i = 1, 3 do redis.call('PEXPIREAT', KEYS[i], ARGV[4]) end
return 1
