-- A racer of an arena is back in its pool after their race (or after leaving it).
-- KEYS: arena, players, pool, since, racing, paired. ARGV: pid, room (their race; empty:
-- none), pool score, now (ms), the keys' end (ms).
-- Returns 'ok'; 'arena_over' (no pool once the arena ended); 'not_in_arena' (they left);
-- 'racing' (they are in another race of the arena already).
if redis.call('HGET', KEYS[1], 'over') == '1' then return 'arena_over' end
local pid = ARGV[1]
if not redis.call('HGET', KEYS[2], pid) then return 'not_in_arena' end
local racing = redis.call('HGET', KEYS[5], pid)
if racing and racing ~= ARGV[2] then return 'racing' end
if redis.call('HGET', KEYS[6], pid) then return 'racing' end
redis.call('HDEL', KEYS[5], pid)
redis.call('ZADD', KEYS[3], ARGV[3], pid)
redis.call('HSET', KEYS[4], pid, ARGV[4])
for i = 3, 5 do redis.call('PEXPIREAT', KEYS[i], ARGV[5]) end
return 'ok'
