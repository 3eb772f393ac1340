-- uses: common
-- The host of an invite race room says, in the lobby, whether the race is rated; every
-- racer hears it in the `room` message before the start. A public room is always rated. A
-- rated race never shows the boards live: a live room made rated falls back to delayed.
-- KEYS: meta, members, events. ARGV: pid (host), rated ('1' or '0'), origin, maxev, ttl.
-- Returns {status, seq}.
local st = redis.call('HMGET', KEYS[1], 'state', 'host', 'mode', 'public')
if not st[1] then return {'room_not_found', 0} end
if st[2] ~= ARGV[1] then return {'not_host', 0} end
if st[1] ~= 'lobby' or st[3] ~= 'race' then return {'wrong_state', 0} end
if st[4] == '1' then return {'public_room', 0} end
redis.call('HSET', KEYS[1], 'rated', ARGV[2])
if ARGV[2] == '1' and redis.call('HGET', KEYS[1], 'watch') == 'live' then
  redis.call('HSET', KEYS[1], 'watch', 'delayed')
end
local seq = emit_record(KEYS[1], KEYS[3], KEYS[1] .. ':ch', ARGV[3], '', 'room',
  room_values(KEYS[1], KEYS[2]), ARGV[4])
touch(tonumber(ARGV[5]), KEYS)
return {'ok', seq}
