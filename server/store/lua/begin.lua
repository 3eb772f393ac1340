-- uses: common
-- The countdown is over: the race is on. Idempotent; only the first call counts.
-- KEYS: meta, members, events, res. ARGV: round, origin, maxev, now. Returns {status, seq}.
local st = redis.call('HMGET', KEYS[1], 'state', 'round', 'starts_at', 'code', 'cells')
if not st[1] then return {'room_not_found', 0} end
if st[1] ~= 'countdown' or st[2] ~= ARGV[1] then return {'noop', 0} end
if tonumber(ARGV[4]) < tonumber(st[3]) then return {'early', 0} end
redis.call('HSET', KEYS[1], 'state', 'racing')
-- The record's values as server/store/events.py RECORDS lays them out, then the racers.
local round, code, cells, started_at = st[2], st[4], st[5], st[3]
local values = {round, code, cells, started_at}
for _, k in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(k, 1, 3) == 'st:' then values[#values + 1] = string.sub(k, 4) end
end
local seq = emit_record(KEYS[1], KEYS[3], KEYS[1] .. ':ch', ARGV[2], '', 'started', values,
  ARGV[3])
-- Everyone left during the countdown: the race is over as soon as it starts.
maybe_over(KEYS[1], KEYS[3], KEYS[4], KEYS[1] .. ':ch', ARGV[2], ARGV[1], ARGV[3])
return {'ok', seq}
