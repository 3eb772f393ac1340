-- Shared by the room scripts (prepended to each script that says `-- uses: common`).
--
-- An event is stored in the room's event list and published on its channel as
-- `PID <TAB> FULL <TAB> RACER <TAB> WATCH [<TAB> OWN]` (published with `ORIGIN <TAB>` in
-- front): PID is the player the event is about (empty for a room-wide event), FULL what
-- spectators and that player receive, RACER what the other racers receive instead ('' the
-- same as FULL, '-' nothing), WATCH the room's watch mode and delay (`WORD:DELAY_S`, a
-- board's delta only; '' none), from which the server decides what spectators receive
-- (server/rooms/visibility.py: the scripts decide nothing of it). OWN (a
-- board's delta only) is the JSON of that board's legal moves, which that player's own
-- sockets alone receive added to FULL (server/net/wire/bodies.py own_view).
--
-- On the channel, OWN is `*`: the legal moves go to that player's sockets alone (the mover's
-- with the ack, the others' on the player's own channel, see `emit`). A move's delta is
-- published only while an instance other than the mover's follows the room (move.lua): the
-- mover's instance fans it out from the script's answer.
--
-- FULL and RACER are either a message body the server wrote (a JSON object without its
-- opening brace) with the seq stamped in front, or, for an event whose values only the
-- script knows (a rank, the members, the results), a record: a JSON array
-- [kind, seq, values...] that the server turns into its message (server/net/wire/records.py).
-- server/store/events.py reads and writes this form (ENTRY); each record's values are built
-- from locals named as its RECORDS lays them out, and a `room` record's fields are
-- ROOM_FIELDS (tests/server/store/test_room_event.py holds both sides to it).

local function next_seq(meta)
  return redis.call('HINCRBY', meta, 'seq', 1)
end

local function stamp(seq, body)
  return '{"seq":' .. seq .. ',' .. body
end

local function push(events, ch, origin, pid, full, racer, maxev, watch, own)
  local entry = pid .. '\t' .. full .. '\t' .. racer .. '\t' .. (watch or '')
  if own then
    redis.call('RPUSH', events, entry .. '\t' .. own)
    -- Not to every instance in the room: OWN is '*' on the channel (see `emit`).
    entry = entry .. '\t*'
  else
    redis.call('RPUSH', events, entry)
  end
  redis.call('LTRIM', events, -tonumber(maxev), -1)
  -- On a Redis Cluster the store loads this with SPUBLISH (server/store/scripts.py): the
  -- channel shares the room's hash tag, so the event stays on the room's shard. No channel
  -- (a move nobody but the mover's instance follows): stored, not published.
  if ch then redis.call('PUBLISH', ch, origin .. '\t' .. entry) end
end

-- An event the server wrote: stamp the seq, store, publish. Returns the seq.
-- OWN_CH (with OWN): the player's own channel in the room (`ch .. ':' .. pid`), to publish
-- `SEQ <TAB> OWN` on just before the event, for that player's other sockets; nil when the
-- player has none (server/net/hub.py joins the two).
local function emit(meta, events, ch, origin, pid, body, racer, maxev, watch, own, own_ch)
  local seq = next_seq(meta)
  local r = racer
  if r ~= '' and r ~= '-' then r = stamp(seq, r) end
  if own and own_ch then redis.call('PUBLISH', own_ch, seq .. '\t' .. own) end
  push(events, ch, origin, pid, stamp(seq, body), r, maxev, watch, own)
  return seq
end

-- An event of values only the script knows, as a record. Returns the seq.
local function emit_record(meta, events, ch, origin, pid, kind, values, maxev)
  local seq = next_seq(meta)
  local r = {kind, tostring(seq)}
  for _, v in ipairs(values) do r[#r + 1] = tostring(v) end
  push(events, ch, origin, pid, cjson.encode(r), '', maxev)
  return seq
end

-- The values of a `room` record: the room's fields, then every racer's member JSON.
-- Spectators are a count (`ns`), never a list: a room event stays small however many watch.
local function room_values(meta, members)
  local m = redis.call('HMGET', meta, 'room_id', 'code', 'cells', 'mode', 'state', 'round',
                       'host', 'ns', 'typed', 'watch', 'delay_s', 'public', 'rated', 'paired')
  local v = {m[1], m[2], m[3], m[4], m[5], m[6], m[7] or '', m[8] or '0', m[9] or '0',
             m[10] or 'live', m[11] or '30', m[12] or '0', m[13] or '0', m[14] or '0'}
  for _, entry in ipairs(redis.call('HVALS', members)) do
    if cjson.decode(entry)['role'] == 'player' then v[#v + 1] = entry end
  end
  return v
end

-- If pid was the host, the first remaining racer becomes host (none: '').
local function hand_on_host(meta, members, pid)
  if redis.call('HGET', meta, 'host') ~= pid then return end
  local next_host = ''
  for _, v in ipairs(redis.call('HVALS', members)) do
    local d = cjson.decode(v)
    if d['role'] == 'player' then next_host = d['player_id'] break end
  end
  redis.call('HSET', meta, 'host', next_host)
end

-- When no racer is left playing: the room is done and the results go out, finishers by
-- rank, then the others by player id. A result is `PID -> JSON`, its rank `rank:PID`.
local function maybe_over(meta, events, res, ch, origin, round, maxev)
  if tonumber(redis.call('HGET', meta, 'playing') or '0') > 0 then return 0 end
  if redis.call('HGET', meta, 'state') ~= 'racing' then return 0 end
  redis.call('HSET', meta, 'state', 'done')
  local all = redis.call('HGETALL', res)
  local ranks, rows = {}, {}
  for i = 1, #all, 2 do
    if string.sub(all[i], 1, 5) == 'rank:' then ranks[string.sub(all[i], 6)] = all[i + 1] end
  end
  for i = 1, #all, 2 do
    local pid = all[i]
    if string.sub(pid, 1, 5) ~= 'rank:' then
      rows[#rows + 1] = {tonumber(ranks[pid] or '1000'), pid, all[i + 1], ranks[pid] or ''}
    end
  end
  table.sort(rows, function(a, b)
    if a[1] ~= b[1] then return a[1] < b[1] end
    return a[2] < b[2]
  end)
  -- The deal's par ('' unknown) and whether it is proven: the results say it beside.
  local p = redis.call('HMGET', meta, 'par', 'par_optimal')
  local par, par_optimal = p[1] or '', p[2] or '0'
  local values = {round, par, par_optimal}
  for _, row in ipairs(rows) do
    values[#values + 1] = row[4]
    values[#values + 1] = row[3]
  end
  return emit_record(meta, events, ch, origin, '', 'race_over', values, maxev)
end

local function touch(ttl, keys)
  for _, k in ipairs(keys) do redis.call('EXPIRE', k, ttl) end
end

