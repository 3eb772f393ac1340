-- A batch of commands run as one atomic step, as MULTI/EXEC would (see store/atomic.py).
-- KEYS: every key the commands touch (one cluster slot). ARGV: for each command, its
-- number of words, then the words (the command's name first).
-- Returns the commands' answers in order (a missing value as nil).
local out, i = {}, 1
while i <= #ARGV do
  local n = tonumber(ARGV[i])
  out[#out + 1] = redis.call(unpack(ARGV, i + 1, i + n))
  i = i + n + 1
end
return out
