-- uses: common
-- A racer gives up this round.
-- KEYS: meta, events, res. ARGV: pid, round, gave_up body, result JSON, origin, maxev, ttl.
-- Returns {status, seq}.
local pid, round, origin, maxev = ARGV[1], ARGV[2], ARGV[5], ARGV[6]
local ch = KEYS[1] .. ':ch'
local st = redis.call('HMGET', KEYS[1], 'state', 'round', 'st:' .. pid)
if not st[1] then return {'room_not_found', 0} end
if st[3] ~= 'playing' or st[2] ~= round then return {'not_racing', 0} end
if st[1] ~= 'racing' and st[1] ~= 'countdown' then return {'wrong_state', 0} end
redis.call('HSET', KEYS[1], 'st:' .. pid, 'gave_up')
redis.call('HINCRBY', KEYS[1], 'playing', -1)
redis.call('HSET', KEYS[3], pid, ARGV[4])
local seq = emit(KEYS[1], KEYS[2], ch, origin, pid, ARGV[3], '', maxev)
if st[1] == 'countdown' and tonumber(redis.call('HGET', KEYS[1], 'playing')) <= 0 then
  redis.call('HSET', KEYS[1], 'state', 'racing')
end
maybe_over(KEYS[1], KEYS[2], KEYS[3], ch, origin, round, maxev)
touch(tonumber(ARGV[7]), KEYS)
return {'ok', seq}
