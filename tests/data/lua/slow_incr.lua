-- A test script that keeps Redis busy ARGV[2] microseconds, then adds ARGV[1] to KEYS[1].
local t = redis.call('TIME')
local until_us = (tonumber(t[1]) * 1000000 + tonumber(t[2])) + tonumber(ARGV[2])
while true do
  local n = redis.call('TIME')
  if tonumber(n[1]) * 1000000 + tonumber(n[2]) >= until_us then break end
end
return redis.call('INCRBY', KEYS[1], ARGV[1])
