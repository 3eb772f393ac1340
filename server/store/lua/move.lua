-- uses: common
-- Commit one request on a board whose version (log length) is as the server saw it.
-- KEYS: meta, log, ids, events, res.
-- ARGV: pid, round, id, version, log entries, delta bodies, progress bodies, finishing (0/1),
-- time_ms, moves, result JSON, origin, maxev, ttl, now, rate, burst, max actions, legal,
-- perfect (0/1: the finish wins in exactly the deal's proven par).
-- Returns {status, seq, rank, first seq}: the seqs of its deltas run from first seq to seq.
-- A request is one action, or a send home: the taps it stands for, each an action of its own
-- (a log entry, a delta event with its seq, an id `ID.N` in the ids hash), all committed here
-- at once. Log entries, bodies and legal (each delta's board's legal moves, JSON) hold one
-- line per action. The rate limit counts requests: a send home takes one token.
-- The origin is the mover's connection: it gets its deltas with the ack, not from the channel.
local pid, round, id, version = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local origin, maxev, ttl = ARGV[12], ARGV[13], ARGV[14]
local now, rate, burst, max_actions = tonumber(ARGV[15]), tonumber(ARGV[16]),
  tonumber(ARGV[17]), tonumber(ARGV[18])
local ch = KEYS[1] .. ':ch'
local function lines(text)
  local out = {}
  for line in string.gmatch(text, '[^\n]+') do out[#out + 1] = line end
  return out
end
local entries, bodies, progress = lines(ARGV[5]), lines(ARGV[6]), lines(ARGV[7])
local legal = lines(ARGV[19] or '')
local done = redis.call('HGET', KEYS[3], id)
if done then
  -- A write (the TTL renewed), so that --durable's WAIT after this answer covers the commit.
  redis.call('EXPIRE', KEYS[3], tonumber(ttl))
  return {'dup', tonumber(done), 0}
end
local st = redis.call('HMGET', KEYS[1], 'state', 'round', 'st:' .. pid, 'watch', 'delay_s',
  'public')
if not st[1] then return {'room_not_found', 0, 0} end
if st[2] ~= round then return {'round', 0, 0} end
if st[3] == 'finished' or st[3] == 'gave_up' then return {'finished', 0, 0} end
if st[3] ~= 'playing' then return {'not_racing', 0, 0} end
if st[1] ~= 'racing' then return {'not_started', 0, 0} end
local length = redis.call('LLEN', KEYS[2])
if length ~= version then return {'stale', 0, 0} end
if length + #entries > max_actions then return {'too_many_actions', 0, 0} end
-- One board takes at most `rate` requests a second (bursts of `burst`), however many sockets
-- send them: a token bucket in the room's hash, `tb:PID` = "tokens last_ms".
local bucket = redis.call('HGET', KEYS[1], 'tb:' .. pid)
local tokens, last = burst, now
if bucket then
  local sep = string.find(bucket, ' ')
  tokens, last = tonumber(string.sub(bucket, 1, sep - 1)), tonumber(string.sub(bucket, sep + 1))
  tokens = math.min(burst, tokens + math.max(0, now - last) * rate / 1000)
end
if tokens < 1 then return {'rate_limited', 0, 0} end
redis.call('HSET', KEYS[1], 'tb:' .. pid, string.format('%.3f %d', tokens - 1, now))
-- What spectators get of a board under the room's watch mode (see common.lua).
local watch = ''
if st[4] == 'progress' then watch = 'p'
elseif st[4] == 'delayed' then watch = 'd' .. tostring(tonumber(st[5] or '30') * 1000) end
local first, seq = 0, 0
for i = 1, #entries do
  redis.call('RPUSH', KEYS[2], entries[i])
  seq = emit(KEYS[1], KEYS[4], ch, origin, pid, bodies[i], progress[i], maxev, watch, legal[i])
  if i == 1 then first = seq end
  -- Each log entry's id (MS<TAB>ID<TAB>ACTION) gives its seq; the request's id the last.
  redis.call('HSET', KEYS[3], string.match(entries[i], '^[^\t]*\t([^\t]*)'), seq)
end
redis.call('HSET', KEYS[3], id, seq)
-- A public room's listing shows each racer's last progress (server/store/listing.py).
if st[6] == '1' then redis.call('HSET', KEYS[1], 'pg:' .. pid, ARGV[7]) end
local rank = 0
if ARGV[8] == '1' then
  redis.call('HSET', KEYS[1], 'st:' .. pid, 'finished')
  rank = redis.call('HINCRBY', KEYS[1], 'finishers', 1)
  redis.call('HINCRBY', KEYS[1], 'playing', -1)
  redis.call('HSET', KEYS[5], pid, ARGV[11], 'rank:' .. pid, rank)
  local time_ms, moves, perfect = ARGV[9], ARGV[10], ARGV[20] or '0'
  emit_record(KEYS[1], KEYS[4], ch, '-', pid, 'finished',
    {pid, round, time_ms, moves, rank, perfect}, maxev)
  maybe_over(KEYS[1], KEYS[4], KEYS[5], ch, '-', round, maxev)
end
touch(ttl, KEYS)
return {'ok', seq, rank, first}
