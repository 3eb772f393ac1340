-- The events after a seq, for a resume.
-- KEYS: meta, events. ARGV: last_seq. Returns {seq, first, entries...}, where `first` is the
-- seq of the oldest event still kept (no entries when some after last_seq are gone).
local seq = tonumber(redis.call('HGET', KEYS[1], 'seq') or '-1')
local n = redis.call('LLEN', KEYS[2])
local first = seq - n + 1
local from = tonumber(ARGV[1]) + 1
if from < first then return {seq, first} end
local out = redis.call('LRANGE', KEYS[2], from - first, -1)
table.insert(out, 1, first)
table.insert(out, 1, seq)
return out
