-- Whether a board's client action id is committed, for --durable (a resend's answer).
-- KEYS: ids, log. ARGV: id, ttl. Returns {seq or -1, log length}.
-- A committed id renews the ids hash's TTL: a write, so that the WAIT the store sends after
-- this script on the same connection waits for a replica to reach this point of the
-- replication stream, which covers the commit (made earlier, maybe on another connection).
local seq = redis.call('HGET', KEYS[1], ARGV[1])
if seq then redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2])) end
return {tonumber(seq or '-1'), redis.call('LLEN', KEYS[2])}
