-- Let a game alone that is over go soon: its events, logs and fields expire within
-- ARGV[1] seconds (never later than they would have), unless someone else is in the room.
-- KEYS: meta, members, events, here, log, ids, res, hinted (of the round and its player).
-- ARGV: seconds, the player's id.
-- Returns 1 when shortened, 0 when the room is not a solo or daily game over, or someone
-- else is in it.
local st = redis.call('HMGET', KEYS[1], 'mode', 'state')
if (st[1] ~= 'solo' and st[1] ~= 'daily') or st[2] ~= 'done' then return 0 end
local others = redis.call('HKEYS', KEYS[2])
for _, pid in ipairs(others) do
  if pid ~= ARGV[2] then return 0 end
end
local seconds = tonumber(ARGV[1])
for _, key in ipairs(KEYS) do
  local left = redis.call('TTL', key)
  if left == -1 or left > seconds then redis.call('EXPIRE', key, seconds) end
end
return 1
