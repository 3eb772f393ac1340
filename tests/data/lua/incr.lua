-- A test script for the batched connection: add ARGV[1] to KEYS[1]; 'boom' fails.
if ARGV[1] == 'boom' then return redis.error_reply('boom') end
return redis.call('INCRBY', KEYS[1], ARGV[1])
