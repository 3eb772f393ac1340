"""The Lua scripts that change a room in Redis, each one atomic.

Every key a script touches is passed in ``KEYS`` and carries the room's hash tag
(``room:{ID}...``), so a room lives in one Redis Cluster slot. Every event gets the next
room ``seq`` inside the same script that makes the change, is appended to the room's event
list (trimmed to the last ``maxev``) and published once on the room's channel.

An event is stored and published as ``PID <TAB> FULL <TAB> RACER``: ``PID`` is the player
the event is about (empty for room-wide events), ``FULL`` the JSON that spectators and that
player receive, ``RACER`` what the other racers receive instead (empty: the same as FULL;
``-``: nothing). Python passes each JSON body without its opening brace and the script puts
``{"seq":N,`` in front.
"""

from __future__ import annotations

from typing import Final

_COMMON: Final = r"""
local function emit(meta, events, ch, origin, pid, full, racer, maxev)
  local seq = redis.call('HINCRBY', meta, 'seq', 1)
  local head = '{"seq":' .. seq .. ','
  local r = racer
  if r ~= '' and r ~= '-' then r = head .. r end
  local entry = pid .. '\t' .. head .. full .. '\t' .. r
  redis.call('RPUSH', events, entry)
  redis.call('LTRIM', events, -tonumber(maxev), -1)
  redis.call('PUBLISH', ch, origin .. '\t' .. entry)
  return seq
end

local function room_body(meta, members)
  local m = redis.call('HMGET', meta, 'room_id', 'invite', 'code', 'cells', 'mode', 'state',
                       'round', 'host', 'ns')
  local host = 'null'
  if m[8] and m[8] ~= '' then host = '"' .. m[8] .. '"' end
  return '"type":"room","room_id":"' .. m[1] .. '","invite":"' .. m[2] .. '","code":"' ..
    m[3] .. '","cells":' .. m[4] .. ',"mode":"' .. m[5] .. '","state":"' .. m[6] ..
    '","round":' .. m[7] .. ',"host":' .. host .. ',"players":[' ..
    table.concat(redis.call('HVALS', members), ',') .. '],"spectators":' .. (m[9] or 0) .. '}'
end

-- If pid was the host, the first remaining racer becomes host (none: '').
local function hand_on_host(meta, members, pid)
  if redis.call('HGET', meta, 'host') ~= pid then return end
  local next_host = ''
  for i, v in ipairs(redis.call('HVALS', members)) do
    local d = cjson.decode(v)
    if d['role'] == 'player' then next_host = d['player_id'] break end
  end
  redis.call('HSET', meta, 'host', next_host)
end

-- When no racer is left playing: the room is done and the results go out, ranked first.
local function maybe_over(meta, events, res, ch, origin, round, maxev)
  if tonumber(redis.call('HGET', meta, 'playing') or '0') > 0 then return 0 end
  if redis.call('HGET', meta, 'state') ~= 'racing' then return 0 end
  redis.call('HSET', meta, 'state', 'done')
  local vals = redis.call('HVALS', res)
  local rows = {}
  for i, v in ipairs(vals) do
    local d = cjson.decode(v)
    local rank = 1000
    if type(d['rank']) == 'number' then rank = d['rank'] end
    rows[i] = {rank, d['player_id'], v}
  end
  table.sort(rows, function(a, b)
    if a[1] ~= b[1] then return a[1] < b[1] end
    return a[2] < b[2]
  end)
  local parts = {}
  for i, row in ipairs(rows) do parts[i] = row[3] end
  return emit(meta, events, ch, origin, '',
    '"type":"race_over","round":' .. round .. ',"results":[' .. table.concat(parts, ',') .. ']}',
    '', maxev)
end

local function touch(ttl, keys)
  for _, k in ipairs(keys) do redis.call('EXPIRE', k, ttl) end
end
"""

#: Create a room. KEYS: meta, members, events. ARGV: ttl, then field/value pairs.
CREATE: Final = r"""
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local fields = {}
for i = 2, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[1]))
return 1
"""

#: Add a member. KEYS: meta, members, events. ARGV: pid, role, entry json, max players,
#: origin, maxev, ttl. Returns {status, seq}.
JOIN: Final = (
    _COMMON
    + r"""
local pid, role, entry, maxp, origin, maxev, ttl = ARGV[1], ARGV[2], ARGV[3],
  tonumber(ARGV[4]), ARGV[5], ARGV[6], ARGV[7]
local ch = KEYS[1] .. ':ch'
local st = redis.call('HMGET', KEYS[1], 'state', 'np', 'mode')
if not st[1] then return {'room_not_found', 0} end
local old = redis.call('HGET', KEYS[2], pid)
if old then
  local was = cjson.decode(old)['role']
  if was == role then return {'ok', tonumber(redis.call('HGET', KEYS[1], 'seq'))} end
  if was == 'player' and st[1] ~= 'lobby' then return {'race_in_progress', 0} end
end
if role == 'player' then
  if st[1] ~= 'lobby' then return {'race_in_progress', 0} end
  if tonumber(st[2] or '0') >= maxp then return {'room_full', 0} end
  redis.call('HINCRBY', KEYS[1], 'np', 1)
  redis.call('HSET', KEYS[1], 'st:' .. pid, 'waiting')
  if not redis.call('HGET', KEYS[1], 'host') or redis.call('HGET', KEYS[1], 'host') == '' then
    redis.call('HSET', KEYS[1], 'host', pid)
  end
else
  redis.call('HINCRBY', KEYS[1], 'ns', 1)
end
if old then
  if role == 'player' then redis.call('HINCRBY', KEYS[1], 'ns', -1)
  else redis.call('HINCRBY', KEYS[1], 'np', -1) redis.call('HDEL', KEYS[1], 'st:' .. pid) end
end
redis.call('HSET', KEYS[2], pid, entry)
-- A host who turns spectator hands the room on, as one who leaves does.
if role ~= 'player' then hand_on_host(KEYS[1], KEYS[2], pid) end
local seq = emit(KEYS[1], KEYS[3], ch, origin, '', room_body(KEYS[1], KEYS[2]), '', maxev)
touch(ttl, KEYS)
return {'ok', seq}
"""
)

#: Remove a member. KEYS: meta, members, events, res. ARGV: pid, origin, maxev, ttl,
#: gave_up body, result json. A racer leaving a running race gives up.
LEAVE: Final = (
    _COMMON
    + r"""
local pid, origin, maxev, ttl = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local ch = KEYS[1] .. ':ch'
local old = redis.call('HGET', KEYS[2], pid)
if not old then return {'not_in_room', 0} end
local role = cjson.decode(old)['role']
local st = redis.call('HMGET', KEYS[1], 'state', 'st:' .. pid, 'round')
if role == 'player' then
  if st[2] == 'playing' and (st[1] == 'racing' or st[1] == 'countdown') then
    redis.call('HSET', KEYS[1], 'st:' .. pid, 'gave_up')
    redis.call('HINCRBY', KEYS[1], 'playing', -1)
    redis.call('HSET', KEYS[4], pid, ARGV[6])
    emit(KEYS[1], KEYS[3], ch, origin, pid, ARGV[5], '', maxev)
    maybe_over(KEYS[1], KEYS[3], KEYS[4], ch, origin, st[3], maxev)
  end
  if st[1] == 'lobby' or st[1] == 'done' then redis.call('HDEL', KEYS[1], 'st:' .. pid) end
  redis.call('HINCRBY', KEYS[1], 'np', -1)
else
  redis.call('HINCRBY', KEYS[1], 'ns', -1)
end
redis.call('HDEL', KEYS[2], pid)
hand_on_host(KEYS[1], KEYS[2], pid)
local seq = emit(KEYS[1], KEYS[3], ch, origin, '', room_body(KEYS[1], KEYS[2]), '', maxev)
touch(ttl, {KEYS[1], KEYS[2], KEYS[3]})
return {'ok', seq}
"""
)

#: Start the countdown. KEYS: meta, members, events. ARGV: pid (host), starts_at, now,
#: origin, maxev, ttl. Everyone who is a player now races.
START: Final = (
    _COMMON
    + r"""
local pid, starts_at, now, origin, maxev, ttl = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local ch = KEYS[1] .. ':ch'
local st = redis.call('HMGET', KEYS[1], 'state', 'host', 'round', 'np')
if not st[1] then return {'room_not_found', 0} end
if st[2] ~= pid then return {'not_host', 0} end
if st[1] ~= 'lobby' then return {'wrong_state', 0} end
if tonumber(st[4] or '0') < 1 then return {'wrong_state', 0} end
local playing = 0
for i, v in ipairs(redis.call('HVALS', KEYS[2])) do
  local d = cjson.decode(v)
  if d['role'] == 'player' then
    redis.call('HSET', KEYS[1], 'st:' .. d['player_id'], 'playing')
    playing = playing + 1
  end
end
redis.call('HSET', KEYS[1], 'state', 'countdown', 'starts_at', starts_at, 'playing', playing,
  'finishers', 0)
local seq = emit(KEYS[1], KEYS[3], ch, origin, '',
  '"type":"countdown","round":' .. st[3] .. ',"starts_at":' .. starts_at .. ',"now":' .. now .. '}',
  '', maxev)
touch(ttl, KEYS)
return {'ok', seq}
"""
)

#: Countdown over: the race is on. Idempotent. KEYS: meta, members, events, res.
#: ARGV: round, body (``started`` without players), origin, maxev, now.
BEGIN: Final = (
    _COMMON
    + r"""
local st = redis.call('HMGET', KEYS[1], 'state', 'round', 'starts_at')
if not st[1] then return {'room_not_found', 0} end
if st[1] ~= 'countdown' or st[2] ~= ARGV[1] then return {'noop', 0} end
if tonumber(ARGV[5]) < tonumber(st[3]) then return {'early', 0} end
redis.call('HSET', KEYS[1], 'state', 'racing')
local ids = {}
for i, k in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(k, 1, 3) == 'st:' then ids[#ids + 1] = '"' .. string.sub(k, 4) .. '"' end
end
local seq = emit(KEYS[1], KEYS[3], KEYS[1] .. ':ch', ARGV[3], '',
  ARGV[2] .. ',"players":[' .. table.concat(ids, ',') .. ']}', '', ARGV[4])
-- Everyone left during the countdown: the race is over as soon as it starts.
maybe_over(KEYS[1], KEYS[3], KEYS[4], KEYS[1] .. ':ch', ARGV[3], ARGV[1], ARGV[4])
return {'ok', seq}
"""
)

#: Commit one action. KEYS: meta, log, ids, events, res.
#: ARGV: pid, round, id, version, log entry, delta body, progress body, finishing (0/1),
#: finished body (ends with ``"rank":``), result json prefix (ends with ``"rank":``), origin
#: (the mover's connection, which gets its delta with the ack and not from the channel),
#: maxev, ttl. Returns {status, seq, rank}.
MOVE: Final = (
    _COMMON
    + r"""
local pid, round, id, version = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local origin, maxev, ttl = ARGV[11], ARGV[12], ARGV[13]
local ch = KEYS[1] .. ':ch'
local done = redis.call('HGET', KEYS[3], id)
if done then return {'dup', tonumber(done), 0} end
local st = redis.call('HMGET', KEYS[1], 'state', 'round', 'st:' .. pid)
if not st[1] then return {'room_not_found', 0, 0} end
if st[2] ~= round then return {'round', 0, 0} end
if st[3] == 'finished' or st[3] == 'gave_up' then return {'finished', 0, 0} end
if st[3] ~= 'playing' then return {'not_racing', 0, 0} end
if st[1] ~= 'racing' then return {'not_started', 0, 0} end
if redis.call('LLEN', KEYS[2]) ~= version then return {'stale', 0, 0} end
redis.call('RPUSH', KEYS[2], ARGV[5])
local seq = emit(KEYS[1], KEYS[4], ch, origin, pid, ARGV[6], ARGV[7], maxev)
redis.call('HSET', KEYS[3], id, seq)
local rank = 0
if ARGV[8] == '1' then
  redis.call('HSET', KEYS[1], 'st:' .. pid, 'finished')
  rank = redis.call('HINCRBY', KEYS[1], 'finishers', 1)
  redis.call('HINCRBY', KEYS[1], 'playing', -1)
  redis.call('HSET', KEYS[5], pid, ARGV[10] .. rank .. '}')
  emit(KEYS[1], KEYS[4], ch, '-', pid, ARGV[9] .. rank .. '}', '', maxev)
  maybe_over(KEYS[1], KEYS[4], KEYS[5], ch, '-', round, maxev)
end
touch(ttl, KEYS)
return {'ok', seq, rank}
"""
)

#: Give up. KEYS: meta, events, res. ARGV: pid, round, gave_up body, result json, origin,
#: maxev, ttl.
GIVE_UP: Final = (
    _COMMON
    + r"""
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
"""
)

#: A new round on a new deal, back in the lobby. KEYS: meta, members, events.
#: ARGV: pid (host), code, origin, maxev, ttl.
REMATCH: Final = (
    _COMMON
    + r"""
local st = redis.call('HMGET', KEYS[1], 'state', 'host', 'round')
if not st[1] then return {'room_not_found', 0} end
if st[2] ~= ARGV[1] then return {'not_host', 0} end
if st[1] ~= 'done' then return {'wrong_state', 0} end
local round = tonumber(st[3]) + 1
redis.call('HSET', KEYS[1], 'state', 'lobby', 'round', round, 'code', ARGV[2], 'starts_at', '',
  'playing', 0, 'finishers', 0)
-- A new round has only the racers who are members now.
for i, k in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(k, 1, 3) == 'st:' then redis.call('HDEL', KEYS[1], k) end
end
for i, v in ipairs(redis.call('HVALS', KEYS[2])) do
  local d = cjson.decode(v)
  if d['role'] == 'player' then redis.call('HSET', KEYS[1], 'st:' .. d['player_id'], 'waiting') end
end
local seq = emit(KEYS[1], KEYS[3], KEYS[1] .. ':ch', ARGV[3], '', room_body(KEYS[1], KEYS[2]),
  '', ARGV[4])
touch(tonumber(ARGV[5]), KEYS)
return {'ok', seq}
"""
)

#: Events after a seq. KEYS: meta, events. ARGV: last_seq. Returns {seq, first, entries...}
#: where ``first`` is the seq of the oldest event still kept.
EVENTS_AFTER: Final = r"""
local seq = tonumber(redis.call('HGET', KEYS[1], 'seq') or '-1')
local n = redis.call('LLEN', KEYS[2])
local first = seq - n + 1
local from = tonumber(ARGV[1]) + 1
if from < first then return {seq, first} end
local out = redis.call('LRANGE', KEYS[2], from - first, -1)
table.insert(out, 1, first)
table.insert(out, 1, seq)
return out
"""
