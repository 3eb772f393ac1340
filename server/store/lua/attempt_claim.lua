-- A player's ranked attempt of a day and kind is the first game they begin (reveal).
-- KEYS: attempts hash. ARGV: pid, room, expire_at (s since the epoch).
-- Returns the room of the ranked attempt: ARGV room if this call took it, else the earlier.
local held = redis.call('HGET', KEYS[1], ARGV[1])
if held then return held end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIREAT', KEYS[1], tonumber(ARGV[3]))
return ARGV[2]
