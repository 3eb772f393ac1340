-- The claim of one finish's review: the instance holding it scores the finish, the others
-- wait for its outcome; a claim whose instance died expires, and the next to look takes it.
-- KEYS: the claim (in the room's slot). ARGV: op ('take', 'renew' or 'drop'), the claimer
-- (an instance id and a nonce of its attempt), the claim's lifetime in ms.
-- Returns 1: taken (only if nobody holds it), renewed or dropped (only the claimer's); 0: not.
local op, me = ARGV[1], ARGV[2]
if op == 'take' then
  if redis.call('SET', KEYS[1], me, 'NX', 'PX', tonumber(ARGV[3])) then return 1 end
  return 0
end
if redis.call('GET', KEYS[1]) ~= me then return 0 end
if op == 'renew' then
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
else
  redis.call('DEL', KEYS[1])
end
return 1
