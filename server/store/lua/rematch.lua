-- uses: common
-- The host's rematch: a new round on a new deal, back in the lobby, with only the racers
-- who are members now.
-- KEYS: meta, members, events. ARGV: pid (host), code, origin, maxev, ttl, par ('' when
-- unknown), par_optimal (0/1).
-- Returns {status, seq}.
local st = redis.call('HMGET', KEYS[1], 'state', 'host', 'round')
if not st[1] then return {'room_not_found', 0} end
if st[2] ~= ARGV[1] then return {'not_host', 0} end
if st[1] ~= 'done' then return {'wrong_state', 0} end
local round = tonumber(st[3]) + 1
redis.call('HSET', KEYS[1], 'state', 'lobby', 'round', round, 'code', ARGV[2], 'starts_at', '',
  'playing', 0, 'finishers', 0, 'typed', 0, 'par', ARGV[6] or '', 'par_optimal', ARGV[7] or '0')
for _, k in ipairs(redis.call('HKEYS', KEYS[1])) do
  local head = string.sub(k, 1, 3)
  if head == 'st:' or head == 'pg:' then redis.call('HDEL', KEYS[1], k) end
end
for _, v in ipairs(redis.call('HVALS', KEYS[2])) do
  local d = cjson.decode(v)
  if d['role'] == 'player' then redis.call('HSET', KEYS[1], 'st:' .. d['player_id'], 'waiting') end
end
local seq = emit_record(KEYS[1], KEYS[3], KEYS[1] .. ':ch', ARGV[3], '', 'room',
  room_values(KEYS[1], KEYS[2]), ARGV[4])
touch(tonumber(ARGV[5]), KEYS)
return {'ok', seq}
