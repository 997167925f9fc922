// The admin scripts: what a namespace holds, its erasure and its upkeep in bounded batches (each a
// script on the namespace's own keys), and the namespace registry read back (registry.ts), on one
// server or on each master of a Cluster.
import { CHANGE_PRELUDE } from './change-prelude.js';
import { rawScript, script } from './scripts.js';

/**
 * `usage`. Returns {files, bytes, versions, time of the last change | nil}: counters the changes
 * keep, nothing walked (but for a namespace written before totals were kept).
 */
export const USAGE = script(
  'usage',
  ' flags=no-writes',
  String.raw`
local T, O = KEYS[7], KEYS[9]
local bytes = tonumber(redis.call('HGET', T, 'bytes'))
if not bytes then
  bytes = 0
  local paths = redis.call('HKEYS', V)
  for i = 1, #paths, 500 do
    for _, size in ipairs(redis.call('HMGET', S, unpack(paths, i, math.min(i + 499, #paths)))) do
      bytes = bytes + (tonumber(size) or 0)
    end
  end
end
return { redis.call('HLEN', V), bytes, redis.call('ZCARD', O), redis.call('HGET', T, 'at') or false }
`,
);

/**
 * `dropNamespace`, one batch on the namespace's own keys. ARGV: batch, the namespace's registry
 * members. Removes files as a delete would (so that what is left after any batch is a consistent
 * namespace), then versions, then, once neither is left, the namespace's registration and every
 * other key. Returns {items removed, 1 when nothing is left}. It does not wait for a folder move
 * under way (step-scripts.ts): erasure wins, and the move's journal goes with the totals.
 */
export const DROP = script(
  'drop',
  '',
  String.raw`
${CHANGE_PRELUDE}
local budget = tonumber(ARGV[1])
local h = { on = false, members = ARGV[2] }
h.at = change_time(now_ms())
local removed = 0
local paths = redis.call('HRANDFIELD', V, budget)
if #paths > 0 then
  total_bytes()
  for _, path in ipairs(paths) do remove_file(h, path) end
  removed = #paths
end
if removed < budget then
  for _, member in ipairs(redis.call('ZRANGE', O, 0, budget - removed - 1)) do
    drop_version(cmsgpack.unpack(member), member)
    removed = removed + 1
  end
end
if redis.call('EXISTS', V) == 1 or redis.call('EXISTS', O) == 1 then return { removed, 0 } end
settle_registration(h.members)
return { removed + redis.call('DEL', F, I, S, R, Q, T, N, P, E, K, D), 1 }
`,
  '',
  false, // erasure goes on even while a folder move is under way (its journal goes with the totals)
);

/**
 * `sweep`, one batch. ARGV: op, fence, expire before ('' none), keep versions ('' no retention),
 * keep ms, now ('' the server's), batch, scan limit, then the history block (9 on) with which
 * expired files are recorded. Expiry removes files whose last change or touched read is before the
 * time; retention reads versions oldest first from where the last batch stopped (`sc` in the
 * totals), removing those older than keep ms that are not among their file's newest keep versions,
 * and stops at the first young one (times never decrease along ids). Returns {expired, pruned,
 * 1 when done}.
 */
export const SWEEP = script(
  'sweep',
  '',
  String.raw`
${CHANGE_PRELUDE}
local op = ARGV[1]
local now = now_ms()
if now > tonumber(ARGV[2]) then return { 'E', 'LATE', now } end
local h = history_args(9, op)
h.at = change_time(now)
local budget, scan_limit = tonumber(ARGV[7]), tonumber(ARGV[8])
local expired, pruned = 0, 0
local done = true
if ARGV[3] ~= '' then
  local stale = redis.call('ZRANGEBYSCORE', E, '-inf', '(' .. ARGV[3], 'LIMIT', 0, budget)
  if #stale > 0 then total_bytes() end
  for _, path in ipairs(stale) do
    if redis.call('HEXISTS', V, path) == 1 then
      remove_file(h, path)
      expired = expired + 1
    else
      redis.call('ZREM', E, path)
    end
  end
  budget = budget - #stale
  if expired > 0 then changed(h) end
  if budget <= 0 then done = false end
end
if ARGV[4] ~= '' and budget > 0 then
  local keep_versions = math.max(1, tonumber(ARGV[4]))
  local cutoff = (ARGV[6] ~= '' and tonumber(ARGV[6]) or h.at) - tonumber(ARGV[5])
  local cursor = tonumber(redis.call('HGET', T, 'sc') or '0')
  local scanned, finished = 0, false
  while budget > 0 and scanned < scan_limit and not finished do
    local page = redis.call('ZRANGEBYSCORE', O, '(' .. int(cursor), '+inf', 'LIMIT', 0, 100)
    if #page < 100 then finished = true end
    for _, member in ipairs(page) do
      local rec = cmsgpack.unpack(member)
      if rec[6] > cutoff then
        finished = true
        break
      end
      cursor, scanned = rec[1], scanned + 1
      local rank = redis.call('ZREVRANK', file_key(rec[2]), int(rec[1]))
      if rank and rank >= keep_versions then
        drop_version(rec, member)
        pruned, budget = pruned + 1, budget - 1
        if budget == 0 then
          finished = false
          break
        end
      end
      if scanned == scan_limit then
        finished = false
        break
      end
    end
  end
  if finished then redis.call('HDEL', T, 'sc') else redis.call('HSET', T, 'sc', cursor) end
  if not finished then done = false end
  if pruned > 0 then settle_registration(h.members) end
end
return { expired, pruned, done and 1 or 0 }
`,
);

/** The lazy merge both namespace scripts use: names after `low` in the registries, distinct, in byte order. */
const MERGE = String.raw`
local base, low, high, want = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])

local function name_of(member)
  local rest = string.sub(member, #base + 1)
  return string.sub(rest, 1, string.find(rest, '\0', 1, true) - 1)
end

-- Byte order (Lua compares strings by the server's locale).
local function before(a, b)
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end

-- A binary heap of { name, key }, least name first.
local heap = {}
local function push(item)
  heap[#heap + 1] = item
  local i = #heap
  while i > 1 do
    local parent = math.floor(i / 2)
    if not before(heap[i][1], heap[parent][1]) then break end
    heap[i], heap[parent] = heap[parent], heap[i]
    i = parent
  end
end
local function pop()
  local top = heap[1]
  heap[1] = heap[#heap]
  heap[#heap] = nil
  local i = 1
  while true do
    local least, left, right = i, 2 * i, 2 * i + 1
    if heap[left] and before(heap[left][1], heap[least][1]) then least = left end
    if heap[right] and before(heap[right][1], heap[least][1]) then least = right end
    if least == i then break end
    heap[i], heap[least] = heap[least], heap[i]
    i = least
  end
  return top
end
local function head(key, from)
  local found = redis.call('ZRANGEBYLEX', key, from, high, 'LIMIT', 0, 1)
  if #found > 0 then push({ name_of(found[1]), key }) end
end

local function merge(keys)
  for _, key in ipairs(keys) do head(key, low) end
  local names = {}
  while #names < want and #heap > 0 do
    local item = pop()
    if names[#names] ~= item[1] then names[#names + 1] = item[1] end
    -- Every member of that name in this registry is skipped at once (names hold no \1).
    head(item[2], '[' .. base .. item[1] .. '\1')
  end
  return names
end
`;

/**
 * The names registered below a chain. ARGV: `{chain} NUL`, the range's low and high bounds
 * (ZRANGEBYLEX form), how many names, then the registry keys to read: the server's one, or on a
 * Cluster those of every slot one master serves, read as keys of other slots of the same node
 * (`allow-cross-slot-keys`; the client's key prefix included). Returns distinct names, in byte
 * order.
 */
export const NAMESPACES = rawScript(
  'namespaces',
  ' flags=no-writes,allow-cross-slot-keys',
  `${MERGE}\nlocal keys = {}\nfor i = 5, #ARGV do keys[#keys + 1] = ARGV[i] end\nreturn merge(keys)`,
);

/**
 * The namespaces registered in a range (those nested in one being dropped): ARGV low and high
 * bounds, how many, then the registry keys to read (as for {@link NAMESPACES}). Returns registry
 * members.
 */
export const REGISTRANTS = rawScript(
  'registrants',
  ' flags=no-writes,allow-cross-slot-keys',
  String.raw`
local low, high, want = ARGV[1], ARGV[2], tonumber(ARGV[3])
local found = {}
for i = 4, #ARGV do
  if #found >= want then break end
  for _, member in ipairs(redis.call('ZRANGEBYLEX', ARGV[i], low, high, 'LIMIT', 0, want - #found)) do
    found[#found + 1] = member
  end
end
return found
`,
);
