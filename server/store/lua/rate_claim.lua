-- uses: common
-- Settle a rated round's ratings once: the first instance to call writes the marker (the
-- changes, as computed by the server) and sends `ratings` to the room; later calls, from
-- any instance, get the marker as written, to apply (each player's update is idempotent).
-- KEYS: meta, events, marker. ARGV: marker JSON, the ratings body ('' sends nothing),
-- origin, maxev, ttl. Returns {'ok' (written now) or 'done' (written before), marker}.
local had = redis.call('GET', KEYS[3])
if had then return {'done', had} end
redis.call('SET', KEYS[3], ARGV[1], 'EX', tonumber(ARGV[5]))
if ARGV[2] ~= '' then
  emit(KEYS[1], KEYS[2], KEYS[1] .. ':ch', ARGV[3], '', ARGV[2], '', ARGV[4])
end
return {'ok', ARGV[1]}
