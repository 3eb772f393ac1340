-- uses: common
-- Commit one request on a board whose version (log length) is as the server saw it.
-- KEYS and ARGV by name, in order: unpacked below into locals named as MOVE_KEYS and
-- MOVE_ARGV (server/store/commit.py) and as listed here (tests/server/store/test_move_args.py):
--   KEYS: meta, log, ids, events, res (the room's hash, the board's log and action ids, the
--     room's events, the round's results).
--   ARGV: pid, round, id (the request's), version, entries (log entries), bodies (delta
--     bodies), progress (progress bodies), finishing (0/1), time_ms, moves, result (JSON),
--     origin, maxev, ttl, now, rate, burst, max_actions, legal, perfect (0/1: the finish
--     wins in exactly the deal's proven par), others (0/1: the mover has another socket in
--     the room on the mover's instance), here (0/1: Redis holds the mover's instance's
--     subscription to the room's channel).
-- Returns {status, seq, rank, first seq, watch, published}: the seqs of its deltas run from
-- first seq to seq; watch is the WATCH its deltas were stored with, so that the mover's
-- instance fans them out to its own sockets from this answer (server/net/hub.py
-- `committed`), and published (1/0) whether they went on the room's channel as well.
-- A request is one action, or a send home: the taps it stands for, each an action of its own
-- (a log entry, a delta event with its seq, an id `ID.N` in the ids hash), all committed here
-- at once. Log entries, bodies and legal (each delta's board's legal moves, JSON) hold one
-- line per action. The rate limit counts requests: a send home takes one token.
-- The origin is the mover's connection: it gets its deltas with the ack, not from the channel.
-- The legal moves go on the mover's own channel only for the mover's other sockets: on the
-- mover's instance (others) or on another one (which then follows that channel too: two
-- instances or more do); on the room's channel they are '*' (common.lua).
local meta, log, ids, events, res = unpack(KEYS)
local pid, round, id, version, entries, bodies, progress, finishing, time_ms, moves, result,
  origin, maxev, ttl, now, rate, burst, max_actions, legal, perfect, others,
  here = unpack(ARGV)
version, now, rate = tonumber(version), tonumber(now), tonumber(rate)
burst, max_actions = tonumber(burst), tonumber(max_actions)
local ch = meta .. ':ch'
local function lines(text)
  local out = {}
  for line in string.gmatch(text, '[^\n]+') do out[#out + 1] = line end
  return out
end
local logged, deltas, rivals, legals = lines(entries), lines(bodies), lines(progress),
  lines(legal or '')
local done = redis.call('HGET', ids, id)
if done then
  -- A write (the TTL renewed), so that --durable's WAIT after this answer covers the commit.
  redis.call('EXPIRE', ids, tonumber(ttl))
  return {'dup', tonumber(done), 0}
end
local st = redis.call('HMGET', meta, 'state', 'round', 'st:' .. pid, 'watch', 'delay_s',
  'public')
if not st[1] then return {'room_not_found', 0, 0} end
if st[2] ~= round then return {'round', 0, 0} end
if st[3] == 'finished' or st[3] == 'gave_up' then return {'finished', 0, 0} end
if st[3] ~= 'playing' then return {'not_racing', 0, 0} end
if st[1] ~= 'racing' then return {'not_started', 0, 0} end
local length = redis.call('LLEN', log)
if length ~= version then return {'stale', 0, 0} end
if length + #logged > max_actions then return {'too_many_actions', 0, 0} end
-- One board takes at most `rate` requests a second (bursts of `burst`), however many sockets
-- send them: a token bucket in the room's hash, `tb:PID` = "tokens last_ms".
local bucket = redis.call('HGET', meta, 'tb:' .. pid)
local tokens, last = burst, now
if bucket then
  local sep = string.find(bucket, ' ')
  tokens, last = tonumber(string.sub(bucket, 1, sep - 1)), tonumber(string.sub(bucket, sep + 1))
  tokens = math.min(burst, tokens + math.max(0, now - last) * rate / 1000)
end
if tokens < 1 then return {'rate_limited', 0, 0} end
redis.call('HSET', meta, 'tb:' .. pid, string.format('%.3f %d', tokens - 1, now))
-- The room's watch mode and delay, as the room has them: what spectators get of the board
-- is the server's to decide (server/rooms/visibility.py), not the script's.
local watch = (st[4] or '') .. ':' .. (st[5] or '')
-- The mover's instance fans the deltas out to its own sockets from this answer: they go on
-- the room's channel only for the other instances that follow it (here: the mover's does;
-- a count of 1 is that one alone). The finish and the end of the race go to every one.
local room_ch = ch
if here == '1' and redis.call('PUBSUB', 'NUMSUB', ch)[2] < 2 then room_ch = nil end
local own_ch = ch .. ':' .. pid
if not room_ch or (others ~= '1' and redis.call('PUBSUB', 'NUMSUB', own_ch)[2] < 2) then
  own_ch = nil
end
local first, seq = 0, 0
for i = 1, #logged do
  redis.call('RPUSH', log, logged[i])
  seq = emit(meta, events, room_ch, origin, pid, deltas[i], rivals[i], maxev, watch,
    legals[i], own_ch)
  if i == 1 then first = seq end
  -- Each log entry's id (MS<TAB>ID<TAB>ACTION) gives its seq; the request's id the last.
  redis.call('HSET', ids, string.match(logged[i], '^[^\t]*\t([^\t]*)'), seq)
end
redis.call('HSET', ids, id, seq)
-- A public room's listing shows each racer's last progress (server/store/listing.py).
if st[6] == '1' then redis.call('HSET', meta, 'pg:' .. pid, progress) end
local rank = 0
if finishing == '1' then
  redis.call('HSET', meta, 'st:' .. pid, 'finished')
  rank = redis.call('HINCRBY', meta, 'finishers', 1)
  redis.call('HINCRBY', meta, 'playing', -1)
  redis.call('HSET', res, pid, result, 'rank:' .. pid, rank)
  perfect = perfect or '0'
  emit_record(meta, events, ch, '-', pid, 'finished',
    {pid, round, time_ms, moves, rank, perfect}, maxev)
  maybe_over(meta, events, res, ch, '-', round, maxev)
end
touch(ttl, KEYS)
return {'ok', seq, rank, first, watch, room_ch and 1 or 0}
