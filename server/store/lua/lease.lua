-- A lease: one holder at a time does a job (certify the days' deals, pair an arena, review
-- a finish); a holder that dies stops renewing, its lease expires and the next to ask
-- takes it.
-- KEYS: the lease. ARGV: op ('take', 'renew' or 'drop'), the holder (an instance id, with a
-- nonce where one instance may ask twice), the lease's lifetime in ms (take and renew).
-- Returns 1: taken (nobody held it, or the holder did: then renewed), renewed or dropped
-- (only the holder's); 0: not.
local op, me = ARGV[1], ARGV[2]
local held = redis.call('GET', KEYS[1])
if op == 'take' and not held then
  redis.call('SET', KEYS[1], me, 'PX', tonumber(ARGV[3]))
  return 1
end
if held ~= me then return 0 end
if op == 'drop' then
  redis.call('DEL', KEYS[1])
else
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
end
return 1
