-- Take one from a counter of a fixed window, unless it is spent.
-- KEYS: the counter. ARGV: the most the window allows, the window's length (s).
-- Returns 0 when taken; else the seconds until the window ends (1 at least), taking nothing.
local most = tonumber(ARGV[1])
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used >= most then
  local left = redis.call('TTL', KEYS[1])
  if left < 1 then
    redis.call('EXPIRE', KEYS[1], ARGV[2])
    left = tonumber(ARGV[2])
  end
  return left
end
if redis.call('INCR', KEYS[1]) == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return 0
