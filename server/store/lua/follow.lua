-- Follow a player: add them to a player's bounded follow list (following again renews the
-- name and the time), or refuse once the list is full.
-- KEYS: the follower's follows hash.
-- ARGV: followed player id, entry JSON {at, name}, most follows, keep seconds.
-- Returns 1, or 0 when the list is full.
local key = KEYS[1]
if redis.call('HEXISTS', key, ARGV[1]) == 0 and redis.call('HLEN', key) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('HSET', key, ARGV[1], ARGV[2])
redis.call('EXPIRE', key, tonumber(ARGV[4]))
return 1
