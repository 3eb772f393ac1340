-- One pairing pass over a variant's quick-race queue: takes waiting players out in groups,
-- atomically, so that passes running on several instances never pair a player twice.
-- KEYS: wait, info. ARGV: now (ms), the wait for a fourth (ms), most ready players scanned,
-- most groups, ttl, the held base.
-- Returns the groups, flat: {n, pid1..pidn, n, pid1..pidn, ...}; a household's group (of one
-- address, formed only when nobody else is ready) has -n.
--
-- Only players whose `ready` time has come take part (a dodger's penalty holds them back).
-- A player held back waits scored the held base plus their ready time, after every ready
-- player: once that time has come they are scored by their skill again, and the scan takes
-- the lowest skills among the ready only, so no number held back can fill it.
-- While four or more are ready, the four whose skills (the scores) are closest, the window
-- of four neighbours with the smallest spread, form a group. Two or three left over form
-- one when the longest waiting of them has waited the wait for a fourth. A group never holds
-- two players of one client address (`addr` in their info): a second identity is no rival,
-- and a rated race against it would buy rating. Such a window is passed over; of those
-- left over, the first of each address form the group, and when they all share one
-- address (a family, an office, a carrier's NAT), up to four of them do, as a household.
local now, fourth = tonumber(ARGV[1]), tonumber(ARGV[2])
local max_groups = tonumber(ARGV[4])
local held = tonumber(ARGV[6])
local due = redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[6], string.format('%.0f', held + now))
for _, pid in ipairs(due) do
  local info = redis.call('HGET', KEYS[2], pid)
  local mu = info and tonumber(cjson.decode(info)['mu'])
  if mu then
    redis.call('ZADD', KEYS[1], mu, pid)
  else
    redis.call('ZREM', KEYS[1], pid)  -- no info (or none of its skill): no wait
  end
end
local all = redis.call(
  'ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[6], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[3])
)
local ready = {}
for i = 1, #all, 2 do
  local info = redis.call('HGET', KEYS[2], all[i])
  if info then
    local d = cjson.decode(info)
    if tonumber(d['ready']) <= now then
      ready[#ready + 1] = {all[i], tonumber(all[i + 1]), tonumber(d['since']), d['addr']}
    end
  else
    redis.call('ZREM', KEYS[1], all[i])  -- an entry without its info is no wait
  end
end
local out, groups = {}, 0
-- Take the ready players at the positions `at` (ascending) as one group.
local function take(at)
  groups = groups + 1
  out[#out + 1] = #at
  for _, k in ipairs(at) do
    local pid = ready[k][1]
    out[#out + 1] = pid
    redis.call('ZREM', KEYS[1], pid)
    redis.call('HDEL', KEYS[2], pid)
  end
  for j = #at, 1, -1 do table.remove(ready, at[j]) end
end
-- Whether the players at first .. first + n - 1 come from n addresses (none: its own).
local function apart(first, n)
  local seen = {}
  for k = first, first + n - 1 do
    local a = ready[k][4]
    if a then
      if seen[a] then return false end
      seen[a] = true
    end
  end
  return true
end
while #ready >= 4 and groups < max_groups do
  local best, spread = nil, nil
  for i = 1, #ready - 3 do
    local s = ready[i + 3][2] - ready[i][2]
    if (spread == nil or s < spread) and apart(i, 4) then best, spread = i, s end
  end
  if best == nil then break end
  take({best, best + 1, best + 2, best + 3})
end
-- Left over (fewer than four, or no four of four addresses): the first of each address,
-- at most four, once the longest waiting of them has waited the wait for a fourth.
if #ready >= 2 and groups < max_groups then
  local at, seen, oldest = {}, {}, now
  for k, r in ipairs(ready) do
    if #at < 4 and (not r[4] or not seen[r[4]]) then
      at[#at + 1] = k
      if r[4] then seen[r[4]] = true end
      if r[3] < oldest then oldest = r[3] end
    end
  end
  local household = 1
  if #at < 2 then
    -- One household alone (every ready player of one address): its identities race each
    -- other rather than wait for nobody; the group's size comes negative, so the room says
    -- so, and the race rates nobody of one address against another (same_address).
    at, oldest, household = {}, now, -1
    for k, r in ipairs(ready) do
      if #at < 4 then
        at[#at + 1] = k
        if r[3] < oldest then oldest = r[3] end
      end
    end
  end
  if #at >= 2 and now - oldest >= fourth then
    take(at)
    out[#out - #at] = household * #at
  end
end
if groups > 0 then
  for _, k in ipairs(KEYS) do redis.call('EXPIRE', k, tonumber(ARGV[5])) end
end
return out
