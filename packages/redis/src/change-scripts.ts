// The change scripts: write, remove and move, each one atomic step that checks everything before
// its first write, records its operation id with its outcome (replays answer from it), refuses to
// apply past its fence, and keeps the namespace's totals (KEYS[7]) with which it judges the quota.
// KEYS: files, versions, index, sizes, receipts, receipt times, totals (see scripts.ts).
import { script } from './scripts.js';

/** What the change scripts share: receipts, the fence, totals and quotas, the walk up a path, sizes. */
export const CHANGE_PRELUDE = String.raw`
local R, Q, T = KEYS[5], KEYS[6], KEYS[7]
local RECEIPT_MS = 600000

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function receipt(op, now, outcome)
  redis.call('HSET', R, op, outcome)
  redis.call('ZADD', Q, now, op)
  -- Trim on one change in 8 (by the clock), up to 128 at a time: more than the 8 added meanwhile.
  if now % 8 ~= 0 then return end
  local old = redis.call('ZRANGEBYSCORE', Q, '-inf', now - RECEIPT_MS, 'LIMIT', 0, 128)
  if #old > 0 then
    redis.call('HDEL', R, unpack(old))
    redis.call('ZREM', Q, unpack(old))
  end
end

-- The namespace's bytes, all files counted (hidden ones too); its files are the fields of V. Every
-- change keeps the total; a namespace written before totals were kept gets it from the sizes once.
local function total_bytes()
  local bytes = redis.call('HGET', T, 'bytes')
  if bytes then return tonumber(bytes) end
  local sum, paths = 0, redis.call('HKEYS', V)
  for i = 1, #paths, 500 do
    for _, size in ipairs(redis.call('HMGET', S, unpack(paths, i, math.min(i + 499, #paths)))) do
      sum = sum + (tonumber(size) or 0)
    end
  end
  redis.call('HSET', T, 'bytes', sum)
  return sum
end

local function add_bytes(delta)
  if delta ~= 0 then redis.call('HINCRBY', T, 'bytes', delta) end
end

-- The quota a change would pass (ARGV max bytes and max files, '' for none), as the kit's
-- judgeQuota says: only a change that adds bytes can pass maxBytes, only a new file maxFiles, and
-- the bytes breach is the one reported when both would be passed.
local function quota_breach(max_bytes, max_files, added, new_file)
  if max_bytes ~= '' and added > 0 then
    local total = total_bytes() + added
    if total > tonumber(max_bytes) then return { 'E', 'QUOTA', 'bytes', total, tonumber(max_bytes) } end
  end
  if max_files ~= '' and new_file then
    local files = redis.call('HLEN', V)
    if files + 1 > tonumber(max_files) then return { 'E', 'QUOTA', 'files', files, tonumber(max_files) } end
  end
  return nil
end

-- A path's segments, its ancestors (anc[0] = '' is the root, anc[k] the path) and the index
-- member of each (mem[i] is anc[i]'s).
local function walk(path)
  local segs, anc, mem, k = {}, { [0] = '' }, {}, 0
  for seg in string.gmatch(path, '[^/]+') do
    k = k + 1
    segs[k] = seg
    mem[k] = anc[k - 1] .. '\0' .. seg
    if k == 1 then anc[k] = seg else anc[k] = anc[k - 1] .. '/' .. seg end
  end
  return { segs = segs, anc = anc, mem = mem, k = k }
end

-- For a new node at node.anc[k]: the deepest existing ancestor (0 for the root), or the ancestor
-- that is a file. Walking up, the first directory found settles it: no file lies above a directory.
local function settle(node)
  for i = node.k - 1, 1, -1 do
    if redis.call('ZSCORE', I, '\1' .. node.mem[i]) then return i, nil end
    if redis.call('HEXISTS', V, node.anc[i]) == 1 then return i, node.anc[i] end
  end
  return 0, nil
end

-- Adds the missing directories above node (those deeper than existing) to the index.
local function add_parents(node, existing)
  for i = node.k - 1, existing + 1, -1 do
    redis.call('ZADD', I, 0, node.mem[i], 0, '\1' .. node.mem[i])
  end
end

-- Adds delta bytes to the size of each ancestor that sees the file or folder at node (those at or
-- below its deepest hidden segment).
local function add_size(node, delta)
  if delta == 0 then return end
  local h = 0
  for i = 1, node.k do
    if hidden(node.segs[i]) then h = i end
  end
  for i = h, node.k - 1 do
    redis.call('HINCRBY', S, node.anc[i], delta)
  end
end

-- Removes the directories above node that hold nothing any more, deepest first.
local function prune(node)
  for i = node.k - 1, 1, -1 do
    local dir = node.anc[i]
    if redis.call('ZLEXCOUNT', I, '[' .. dir .. '\0', '(' .. dir .. '\1') > 0 then return end
    redis.call('ZREM', I, node.mem[i], '\1' .. node.mem[i])
    redis.call('HDEL', S, dir)
  end
end

-- The two index ranges of everything beneath dir (children, then deeper), in a region.
local function subtree(region, dir)
  local p = region .. dir
  return { { '[' .. p .. '\0', '(' .. p .. '\1' }, { '[' .. p .. '/', '(' .. p .. '0' } }
end

local function count_beneath(dir)
  local n = 0
  for _, range in ipairs(subtree('', dir)) do
    n = n + redis.call('ZLEXCOUNT', I, range[1], range[2])
  end
  return n
end

local function members_beneath(region, dir)
  local all = {}
  for _, range in ipairs(subtree(region, dir)) do
    local found = redis.call('ZRANGEBYLEX', I, range[1], range[2])
    for i = 1, #found do all[#all + 1] = found[i] end
  end
  return all
end

local function remove_beneath(dir)
  for _, region in ipairs({ '', '\1' }) do
    for _, range in ipairs(subtree(region, dir)) do
      redis.call('ZREMRANGEBYLEX', I, range[1], range[2])
    end
  end
end

-- Runs command key item... over items in chunks (Lua's unpack has a limit).
local function chunked(command, key, items)
  for i = 1, #items, 1000 do
    redis.call(command, key, unpack(items, i, math.min(i + 999, #items)))
  end
end

-- ZADD key 0 member... in chunks.
local function index_add(members)
  for i = 1, #members, 500 do
    local args = {}
    for j = i, math.min(i + 499, #members) do
      args[#args + 1] = 0
      args[#args + 1] = members[j]
    end
    redis.call('ZADD', I, unpack(args))
  end
end
`;

/**
 * `write`. ARGV: path, content, new version, op, fence, expect ('' | 'absent' | 'version'),
 * expected version, max bytes, max files, receipt ('' records the version). Returns
 * {'ok', version or receipt, 'new'} ({'ok', recorded} for a replay) or {'E', code, path}
 * ({'E', 'QUOTA', kind, n, max} past the quota).
 */
export const WRITE = script(
  'write',
  '',
  String.raw`
${CHANGE_PRELUDE}
local path, content, version, op = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local done = redis.call('HGET', R, op)
if done then return { 'ok', done } end
local now = now_ms()
if now > tonumber(ARGV[5]) then return { 'E', 'LATE', now } end

local node = walk(path)
local existing, file = settle(node)
if file then return { 'E', 'PATH_CONFLICT', file } end
local m = node.mem[node.k]
if redis.call('ZSCORE', I, '\1' .. m) then return { 'E', 'PATH_CONFLICT', path } end
local current = redis.call('HGET', V, path)
local expect = ARGV[6]
if (expect == 'absent' and current) or (expect == 'version' and current ~= ARGV[7]) then
  return { 'E', 'CONFLICT', path }
end
local delta = #content
if current then delta = delta - tonumber(redis.call('HGET', S, path) or '0') end
total_bytes() -- made first when missing, so that add_bytes adds to the right total
local breach = quota_breach(ARGV[8], ARGV[9], delta, not current)
if breach then return breach end

if current then redis.call('HDEL', F, current) end
redis.call('HSET', F, version, content)
redis.call('HSET', V, path, version)
redis.call('HSET', S, path, #content)
if not current then
  redis.call('ZADD', I, 0, m)
  add_parents(node, existing)
end
add_size(node, delta)
add_bytes(delta)
local outcome = ARGV[10] ~= '' and ARGV[10] or version
receipt(op, now, outcome)
return { 'ok', outcome, 'new' }
`,
);

/**
 * `remove`. ARGV: path, op, fence, most entries. Returns 1, 0 (nothing there), or {'E', code, x}.
 */
export const REMOVE = script(
  'remove',
  '',
  String.raw`
${CHANGE_PRELUDE}
local path, op = ARGV[1], ARGV[2]
local done = redis.call('HGET', R, op)
if done then return tonumber(done) end
local now = now_ms()
if now > tonumber(ARGV[3]) then return { 'E', 'LATE', now } end

local node = walk(path)
local m = node.mem[node.k]
local weight, removed
if redis.call('HEXISTS', V, path) == 1 then
  total_bytes() -- made first when missing, so that add_bytes takes from the right total
  weight = tonumber(redis.call('HGET', S, path) or '0')
  removed = weight
  redis.call('HDEL', F, redis.call('HGET', V, path))
  redis.call('HDEL', V, path)
  redis.call('HDEL', S, path)
  redis.call('ZREM', I, m)
elseif redis.call('ZSCORE', I, '\1' .. m) then
  local n = count_beneath(path)
  if n > tonumber(ARGV[4]) then return { 'E', 'TOO_MANY', n } end
  total_bytes()
  weight = tonumber(redis.call('HGET', S, path) or '0')
  local paths = {}
  for _, entry in ipairs(members_beneath('', path)) do paths[#paths + 1] = path_of(entry) end
  local versions = {}
  removed = 0
  for i = 1, #paths, 500 do
    local last = math.min(i + 499, #paths)
    local found = redis.call('HMGET', V, unpack(paths, i, last))
    local sizes = redis.call('HMGET', S, unpack(paths, i, last))
    for j = 1, #found do
      if found[j] then
        versions[#versions + 1] = found[j]
        removed = removed + (tonumber(sizes[j]) or 0)
      end
    end
  end
  chunked('HDEL', F, versions)
  chunked('HDEL', V, paths)
  chunked('HDEL', S, paths)
  remove_beneath(path)
  redis.call('HDEL', S, path)
  redis.call('ZREM', I, m, '\1' .. m)
else
  return 0
end
add_size(node, -weight)
add_bytes(-removed)
prune(node)
receipt(op, now, '1')
return 1
`,
);

/**
 * `move`. ARGV: from, to, op, fence, most entries. Returns {'ok'} or {'E', code, x}.
 */
export const MOVE = script(
  'move',
  '',
  String.raw`
${CHANGE_PRELUDE}
local from, to, op = ARGV[1], ARGV[2], ARGV[3]
local done = redis.call('HGET', R, op)
if done then return { 'ok' } end
local now = now_ms()
if now > tonumber(ARGV[4]) then return { 'E', 'LATE', now } end

local source = walk(from)
local target = walk(to)
local sm, tm = source.mem[source.k], target.mem[target.k]
local file = redis.call('HEXISTS', V, from) == 1
if not file and not redis.call('ZSCORE', I, '\1' .. sm) then return { 'E', 'NOT_FOUND', from } end
local existing, above = settle(target)
if above then return { 'E', 'PATH_CONFLICT', above } end
if redis.call('HEXISTS', V, to) == 1 or redis.call('ZSCORE', I, '\1' .. tm) then
  return { 'E', 'ALREADY_EXISTS', to }
end

local weight
if file then
  weight = tonumber(redis.call('HGET', S, from) or '0')
  redis.call('HSET', V, to, redis.call('HGET', V, from))
  redis.call('HSET', S, to, redis.call('HGET', S, from))
  redis.call('HDEL', V, from)
  redis.call('HDEL', S, from)
  redis.call('ZREM', I, sm)
  redis.call('ZADD', I, 0, tm)
else
  local n = count_beneath(from)
  if n > tonumber(ARGV[5]) then return { 'E', 'TOO_MANY', n } end
  weight = tonumber(redis.call('HGET', S, from) or '0')
  local cut = #from + 1
  local entries = members_beneath('', from)
  local directories = members_beneath('\1', from)
  local old, moved, moved_dirs = {}, {}, {}
  for i, entry in ipairs(entries) do
    old[i] = path_of(entry)
    moved[i] = to .. string.sub(entry, cut)
  end
  for i, entry in ipairs(directories) do moved_dirs[i] = '\1' .. to .. string.sub(entry, cut + 1) end
  -- Versions and sizes move in chunks of one HMGET and one HSET per hash (a directory has no
  -- version); the contents stay where they are, keyed by version.
  for _, hash in ipairs({ V, S }) do
    for i = 1, #old, 500 do
      local last = math.min(i + 499, #old)
      local values = redis.call('HMGET', hash, unpack(old, i, last))
      local fields = {}
      for j = i, last do
        local value = values[j - i + 1]
        if value then
          fields[#fields + 1] = to .. string.sub(old[j], cut)
          fields[#fields + 1] = value
        end
      end
      if #fields > 0 then redis.call('HSET', hash, unpack(fields)) end
    end
  end
  chunked('HDEL', V, old)
  chunked('HDEL', S, old)
  remove_beneath(from)
  index_add(moved)
  index_add(moved_dirs)
  redis.call('ZREM', I, sm, '\1' .. sm)
  redis.call('ZADD', I, 0, tm, 0, '\1' .. tm)
  local size = redis.call('HGET', S, from)
  if size then
    redis.call('HSET', S, to, size)
    redis.call('HDEL', S, from)
  end
end
add_parents(target, existing)
add_size(source, -weight)
add_size(target, weight)
prune(source)
receipt(op, now, 'ok')
return { 'ok' }
`,
);
