-- uses: common
-- The host picks what spectators see during the race; only in a race room's lobby, so that
-- every racer knows the mode before the start.
-- KEYS: meta, members, events. ARGV: pid (host), watch mode, delay_s, origin, maxev, ttl.
-- Returns {status, seq}.
local st = redis.call('HMGET', KEYS[1], 'state', 'host', 'mode', 'rated')
if not st[1] then return {'room_not_found', 0} end
if st[2] ~= ARGV[1] then return {'not_host', 0} end
if st[1] ~= 'lobby' or st[3] ~= 'race' then return {'wrong_state', 0} end
-- A race that counts never shows a rival's board live: a spectator tab could relay it.
if ARGV[2] == 'live' and st[4] == '1' then return {'rated_room', 0} end
redis.call('HSET', KEYS[1], 'watch', ARGV[2], 'delay_s', ARGV[3])
local seq = emit_record(KEYS[1], KEYS[3], KEYS[1] .. ':ch', ARGV[4], '', 'room',
  room_values(KEYS[1], KEYS[2]), ARGV[5])
touch(tonumber(ARGV[6]), KEYS)
return {'ok', seq}
