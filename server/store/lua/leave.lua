-- uses: common
-- Remove a member; a racer leaving a running race gives up.
-- KEYS: meta, members, events, res. ARGV: pid, origin, maxev, ttl, gave_up body, result JSON.
-- Returns {status, seq}.
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
  -- A racer who leaves the lobby is no racer; one who leaves a finished round keeps its
  -- status there, so that the round's snapshot (theirs after a reload, a spectator's)
  -- still shows their board and result. A rematch starts the next round without them.
  if st[1] == 'lobby' then redis.call('HDEL', KEYS[1], 'st:' .. pid) end
  redis.call('HINCRBY', KEYS[1], 'np', -1)
else
  redis.call('HINCRBY', KEYS[1], 'ns', -1)
end
redis.call('HDEL', KEYS[2], pid)
hand_on_host(KEYS[1], KEYS[2], pid)
local seq = emit_record(KEYS[1], KEYS[3], ch, origin, '', 'room', room_values(KEYS[1], KEYS[2]),
  maxev)
touch(ttl, {KEYS[1], KEYS[2], KEYS[3]})
return {'ok', seq}
