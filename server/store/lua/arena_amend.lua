-- Record an arena's race again, amended, unless another record came since it was read.
-- KEYS: results. ARGV: the amended record JSON, the list's length when it was read.
-- Returns 1 when appended; 0 when the list has grown since (read again and decide again:
-- two instances amending at once would otherwise leave the staler record last); -1 when
-- the arena's records are gone.
local n = redis.call('LLEN', KEYS[1])
if n == 0 then return -1 end
if n ~= tonumber(ARGV[2]) then return 0 end
redis.call('RPUSH', KEYS[1], ARGV[1])
return 1
