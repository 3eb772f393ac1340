-- Count one solo game once in a player's statistics of one variant (a small hash): games,
-- wins, the current and best streak of wins, the best time and the fewest moves of a win,
-- the last games (for the player page's chart) and the ids of the last games counted (a
-- second call for the same game, from a retry or a leave after a give-up, counts nothing).
-- KEYS: the player's solo hash of the variant.
-- ARGV: game id (ROOM/ROUND), won (0/1), time_ms, moves, keep seconds, ids kept, games kept.
-- Returns {counted (0/1), new best time (0/1), new fewest moves (0/1), new best streak (0/1)}.
local key, id, won = KEYS[1], ARGV[1], ARGV[2] == '1'
local ms, moves, keep = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local seen = redis.call('HGET', key, 'seen') or ''
if string.find(' ' .. seen .. ' ', ' ' .. id .. ' ', 1, true) then return {0, 0, 0, 0} end
local ids = {}
for one in string.gmatch(seen, '%S+') do ids[#ids + 1] = one end
ids[#ids + 1] = id
while #ids > tonumber(ARGV[6]) do table.remove(ids, 1) end
redis.call('HSET', key, 'seen', table.concat(ids, ' '))
redis.call('HINCRBY', key, 'games', 1)
local best_time, fewest, best_streak = 0, 0, 0
local entry = 'l' .. moves
if won then
  entry = 'w' .. ms .. '.' .. moves
  redis.call('HINCRBY', key, 'wins', 1)
  local streak = redis.call('HINCRBY', key, 'streak', 1)
  if streak > tonumber(redis.call('HGET', key, 'best_streak') or '0') then
    redis.call('HSET', key, 'best_streak', streak)
    best_streak = 1
  end
  local old = redis.call('HGET', key, 'best_ms')
  if not old or ms < tonumber(old) then
    redis.call('HSET', key, 'best_ms', ms)
    best_time = 1
  end
  old = redis.call('HGET', key, 'fewest')
  if not old or moves < tonumber(old) then
    redis.call('HSET', key, 'fewest', moves)
    fewest = 1
  end
else
  redis.call('HSET', key, 'streak', 0)
end
local last = redis.call('HGET', key, 'last') or ''
local games = {}
for one in string.gmatch(last, '[^,]+') do games[#games + 1] = one end
games[#games + 1] = entry
while #games > tonumber(ARGV[7]) do table.remove(games, 1) end
redis.call('HSET', key, 'last', table.concat(games, ','))
redis.call('EXPIRE', key, keep)
return {1, best_time, fewest, best_streak}
