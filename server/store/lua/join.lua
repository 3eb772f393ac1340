-- uses: common
-- Add a member, or change a member's role (a racer only in the lobby, or back in the
-- finished round they raced).
-- KEYS: meta, members, events. ARGV: pid, role, member JSON, max racers, origin, maxev, ttl,
-- max spectators, the mark of the client's address ('' for none: kept as `ad:PID` for a
-- racer, so that two racers of one address are not rated against each other).
-- Returns {status, seq}.
local pid, role, entry, maxp, origin, maxev, ttl = ARGV[1], ARGV[2], ARGV[3],
  tonumber(ARGV[4]), ARGV[5], ARGV[6], ARGV[7]
local maxs = tonumber(ARGV[8])
local mark = ARGV[9] or ''
local ch = KEYS[1] .. ':ch'
local st = redis.call('HMGET', KEYS[1], 'state', 'np', 'mode', 'closed')
if not st[1] then return {'room_not_found', 0} end
-- An identity racing this round cannot also watch it (from any socket, even after leaving).
if role ~= 'player' and (st[1] == 'countdown' or st[1] == 'racing')
    and redis.call('HEXISTS', KEYS[1], 'st:' .. pid) == 1 then
  return {'racing_here', 0}
end
local old = redis.call('HGET', KEYS[2], pid)
if old then
  local was = cjson.decode(old)['role']
  if was == role then return {'ok', tonumber(redis.call('HGET', KEYS[1], 'seq'))} end
  if was == 'player' and st[1] ~= 'lobby' then return {'race_in_progress', 0} end
end
if role == 'player' then
  -- A racer of a finished round who left it (a closed tab, a reload) takes their seat
  -- again, their result kept, so that a rematch counts them in.
  local back = st[1] == 'done' and redis.call('HEXISTS', KEYS[1], 'st:' .. pid) == 1
  if st[1] ~= 'lobby' and not back then return {'race_in_progress', 0} end
  -- A paired room closed at the end of its wait, nobody in (lua/start.lua): too late.
  if st[4] == '1' then return {'race_in_progress', 0} end
  if tonumber(st[2] or '0') >= maxp then return {'room_full', 0} end
  redis.call('HINCRBY', KEYS[1], 'np', 1)
  if not back then redis.call('HSET', KEYS[1], 'st:' .. pid, 'waiting') end
  if mark ~= '' then redis.call('HSET', KEYS[1], 'ad:' .. pid, mark) end
  -- A paired room (made by the quick-race queue) has no host: the server starts it.
  if (not redis.call('HGET', KEYS[1], 'host') or redis.call('HGET', KEYS[1], 'host') == '')
      and redis.call('HGET', KEYS[1], 'paired') ~= '1' then
    redis.call('HSET', KEYS[1], 'host', pid)
  end
else
  -- Spectators are capped: each costs the room's fan-out and its member list.
  if tonumber(redis.call('HGET', KEYS[1], 'ns') or '0') >= maxs then
    return {'spectators_full', 0}
  end
  redis.call('HINCRBY', KEYS[1], 'ns', 1)
end
if old then
  if role == 'player' then redis.call('HINCRBY', KEYS[1], 'ns', -1)
  else redis.call('HINCRBY', KEYS[1], 'np', -1) redis.call('HDEL', KEYS[1], 'st:' .. pid) end
end
redis.call('HSET', KEYS[2], pid, entry)
-- A host who turns spectator hands the room on, as one who leaves does.
if role ~= 'player' then hand_on_host(KEYS[1], KEYS[2], pid) end
local seq = emit_record(KEYS[1], KEYS[3], ch, origin, '', 'room', room_values(KEYS[1], KEYS[2]),
  maxev)
touch(ttl, KEYS)
return {'ok', seq}
