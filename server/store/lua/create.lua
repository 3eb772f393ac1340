-- Create a room's field hash unless the id is taken.
-- KEYS: meta. ARGV: ttl, then field/value pairs. Returns 1, or 0 if the room exists.
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local fields = {}
for i = 2, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[1]))
return 1
