-- uses: common
-- The host starts the countdown; everyone who is a racer now races. A paired room (no
-- host: pid '') is started by the server when its racers are in or its wait is over.
-- KEYS: meta, members, events. ARGV: pid (host), starts_at, now, origin, maxev, ttl.
-- Returns {status, seq}: 'empty' when a paired room's wait ended with nobody in (closed).
local pid, starts_at, now, origin, maxev, ttl = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5],
  ARGV[6]
local ch = KEYS[1] .. ':ch'
local st = redis.call('HMGET', KEYS[1], 'state', 'host', 'round', 'np', 'paired')
if not st[1] then return {'room_not_found', 0} end
if st[2] ~= pid then return {'not_host', 0} end
if st[1] ~= 'lobby' then return {'wrong_state', 0} end
if tonumber(st[4] or '0') < 1 then
  -- A paired room whose wait for its racers is over with none in: closed for good, so that
  -- a racer who comes later (a loaded instance) is told it is too late and queues again,
  -- rather than waiting in a lobby that nobody will start.
  if pid == '' and st[5] == '1' then
    redis.call('HSET', KEYS[1], 'closed', '1')
    return {'empty', 0}
  end
  return {'wrong_state', 0}
end
local playing = 0
for _, v in ipairs(redis.call('HVALS', KEYS[2])) do
  local d = cjson.decode(v)
  if d['role'] == 'player' then
    redis.call('HSET', KEYS[1], 'st:' .. d['player_id'], 'playing')
    playing = playing + 1
  end
end
redis.call('HSET', KEYS[1], 'state', 'countdown', 'starts_at', starts_at, 'playing', playing,
  'finishers', 0)
-- The record's values as server/store/events.py RECORDS lays them out.
local round = st[3]
local seq = emit_record(KEYS[1], KEYS[3], ch, origin, '', 'countdown', {round, starts_at, now},
  maxev)
touch(ttl, KEYS)
return {'ok', seq}
