-- One pairing pass over an arena's pool: takes waiting players out in groups of 2 to 4,
-- atomically (run by the instance holding the arena's lease; atomic anyway, so two passes
-- never pair a player twice).
-- KEYS: pool, since, last, players, racing. ARGV: now (ms), the wait for a fourth (ms), most
-- scanned, the keys' end (ms).
-- Returns the groups, flat: {n, pid1..pidn, ...}; each player's rivals become their `last`.
--
-- The pool is scored by arena points then rating, so neighbours are the closest. Four or
-- more waiting: groups form at once, of four (five left: three and two). Two or three: once
-- the longest waiting of them waited the wait for a fourth. A group never holds two players
-- of one client address (`addr` of their info), nor, while others wait, a player and one of
-- their last race's rivals: a first pass keeps both rules, a second one, over those left
-- alone, only the address rule, and a third, over those still alone (then all of one
-- address: a household), none; its groups come with -n, so their rooms say so.
local now, fourth = tonumber(ARGV[1]), tonumber(ARGV[2])
local all = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[3]) - 1)
if #all < 2 then return {} end
local ready, oldest = {}, now
for _, pid in ipairs(all) do
  local info = redis.call('HGET', KEYS[4], pid)
  if info then
    local since = tonumber(redis.call('HGET', KEYS[2], pid) or now)
    if since < oldest then oldest = since end
    local last = redis.call('HGET', KEYS[3], pid)
    local rivals = {}
    if last then for _, r in ipairs(cjson.decode(last)) do rivals[r] = true end end
    ready[#ready + 1] = {pid = pid, addr = cjson.decode(info)['addr'], rivals = rivals}
  else
    redis.call('ZREM', KEYS[1], pid)  -- not a player of the arena: no wait
  end
end
if #ready < 2 or (#ready < 4 and now - oldest < fourth) then return {} end
local used, groups, homes = {}, {}, {}
local function fits(group, k, strict)
  local r = ready[k]
  for _, g in ipairs(group) do
    local o = ready[g]
    if strict ~= nil and r.addr and o.addr and r.addr == o.addr then return false end
    if strict and (o.rivals[r.pid] or r.rivals[o.pid]) then return false end
  end
  return true
end
local function pass(strict)
  local left = 0
  for k = 1, #ready do if not used[k] then left = left + 1 end end
  for i = 1, #ready do
    if not used[i] and left >= 2 then
      local size = left == 5 and 3 or math.min(4, left)
      local group = {i}
      for k = i + 1, #ready do
        if #group >= size then break end
        if not used[k] and fits(group, k, strict) then group[#group + 1] = k end
      end
      if #group >= 2 then
        for _, k in ipairs(group) do used[k] = true end
        left = left - #group
        groups[#groups + 1] = group
        homes[#groups] = strict == nil
      end
    end
  end
end
pass(true)
pass(false)
pass(nil)
local out = {}
for g, group in ipairs(groups) do
  out[#out + 1] = homes[g] and -#group or #group
  for _, k in ipairs(group) do
    local pid = ready[k].pid
    out[#out + 1] = pid
    redis.call('ZREM', KEYS[1], pid)
    redis.call('HDEL', KEYS[2], pid)
    local rivals = {}
    for _, o in ipairs(group) do if o ~= k then rivals[#rivals + 1] = ready[o].pid end end
    redis.call('HSET', KEYS[3], pid, cjson.encode(rivals))
  end
end
if #groups > 0 then redis.call('PEXPIREAT', KEYS[3], ARGV[4]) end
return out
