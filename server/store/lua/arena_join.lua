-- A player joins an arena (every key of the arena shares its hash tag: one slot).
-- KEYS: arena, players, pool, since, racing, paired. ARGV: pid, info JSON {name, addr,
-- rating}, pool score, now (ms), the keys' end (ms since the epoch).
-- Returns 'ok', 'arena_not_found' or 'arena_over'. A player in a race of the arena (or
-- paired into one) joins without entering the pool: they come back to it when it ends.
if redis.call('EXISTS', KEYS[1]) == 0 then return 'arena_not_found' end
if redis.call('HGET', KEYS[1], 'over') == '1' then return 'arena_over' end
local pid = ARGV[1]
redis.call('HSET', KEYS[2], pid, ARGV[2])
if not redis.call('HGET', KEYS[5], pid) and not redis.call('HGET', KEYS[6], pid) then
  redis.call('ZADD', KEYS[3], ARGV[3], pid)
  redis.call('HSET', KEYS[4], pid, ARGV[4])
end
for i = 2, 4 do redis.call('PEXPIREAT', KEYS[i], ARGV[5]) end
return 'ok'
