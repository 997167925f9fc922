// The Lua scripts: each driver call is one of them, run by Redis in one atomic step on the keys of
// one namespace (one hash tag, so one Cluster slot). Read scripts carry `flags=no-writes`; the
// others carry a shebang without it, so that Redis refuses them before they start when memory is
// full instead of stopping one half-way. Each script checks everything before its first write.
//
// The index (KEYS[3]) is a sorted set with every score 0, so it is ordered by bytes. It holds:
//   parent NUL name          for every file and directory (parent is '' for the root's children)
//   \1 parent NUL name       for every directory, again (so directories can be walked alone)
// Paths hold no control characters, so NUL and \1 cannot occur in names and each of these ranges
// is exact, whatever the names hold (no character is special, nothing is a pattern):
//   [P NUL, (P \1     the children of P          [P /, (P 0    everything deeper beneath P
//   [P NUL ., (P NUL /   the children of P whose name starts with "." (hidden, skipped as a block)
// Paths and names are in their stored form (layout.ts), so byte order is JavaScript's order.
//
// Contents (KEYS[1]) are keyed by version, and the versions (KEYS[2]) by path: a move renames the
// short version fields and leaves the contents where they are, so moving a folder costs the same
// whatever its files hold.
//
// Sizes (KEYS[4]): for a file, its bytes; for directory D, the total bytes of the files beneath D
// with no hidden segment below D. A file's size change is added to each ancestor at or below the file's deepest hidden
// segment (to every ancestor when none is hidden), so `view` of a hidden folder needs no special
// case.
//
// Changes carry the operation id: the outcome of a call that changed something is recorded under
// it (KEYS[5], timed in KEYS[6], kept 10 minutes), and a replayed call returns that outcome. They
// also carry a fence, a server time in ms past which they refuse to apply: a request that reaches
// Redis after the engine gave up on it (a resend after a long outage, bytes stuck in a paused
// server) can no longer land after the model was told it may not have been saved.
import { createHash } from 'node:crypto';

/** A script and its SHA-1, for EVALSHA. */
export interface Script {
  readonly name: string;
  readonly source: string;
  readonly sha: string;
}

function script(name: string, flags: string, body: string): Script {
  const source = `#!lua${flags}\n${PRELUDE}\n${body}`;
  return { name, source, sha: createHash('sha1').update(source).digest('hex') };
}

const PRELUDE = String.raw`
local F, V, I, S = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local BATCH = 128

local function hidden(name)
  return string.byte(name, 1) == 46 or name == 'node_modules'
end

local function join(dir, name)
  if dir == '' then return name end
  return dir .. '/' .. name
end

-- The index member of a path: its parent, NUL, its name.
local function member(path)
  local slash = string.find(path, '/[^/]*$')
  if slash == nil then return '\0' .. path end
  return string.sub(path, 1, slash - 1) .. '\0' .. string.sub(path, slash + 1)
end

-- The path of an index member.
local function path_of(entry)
  local nul = string.find(entry, '\0', 1, true)
  if nul == 1 then return string.sub(entry, 2) end
  return string.sub(entry, 1, nul - 1) .. '/' .. string.sub(entry, nul + 1)
end

local function is_dir(path)
  return path == '' or redis.call('ZSCORE', I, '\1' .. member(path)) ~= false
end

-- Calls fn(name) for each visible child of dir, in order, until fn returns true. region '' walks
-- every child, '\1' only the directories. The hidden "." block is never read.
local function each_child(region, dir, fn)
  local base = region .. dir .. '\0'
  local ranges = { '[' .. base, '(' .. base .. '.', '[' .. base .. '/', '(' .. region .. dir .. '\1' }
  for r = 1, 3, 2 do
    local low, high = ranges[r], ranges[r + 1]
    while true do
      local batch = redis.call('ZRANGEBYLEX', I, low, high, 'LIMIT', 0, BATCH)
      for i = 1, #batch do
        local name = string.sub(batch[i], #base + 1)
        if name ~= 'node_modules' and fn(name) then return end
      end
      if #batch < BATCH then break end
      low = '(' .. batch[#batch]
    end
  end
end

-- How many visible children dir has (three O(log n) counts, nothing walked).
local function visible_count(dir)
  local base = dir .. '\0'
  local n = redis.call('ZLEXCOUNT', I, '[' .. base, '(' .. dir .. '\1')
  if n == 0 then return 0 end
  n = n - redis.call('ZLEXCOUNT', I, '[' .. base .. '.', '(' .. base .. '/')
  if redis.call('ZSCORE', I, base .. 'node_modules') then n = n - 1 end
  return n
end
`;

/** What the change scripts share: receipts, the fence, the walk up a path, sizes, pruning. */
const CHANGE_PRELUDE = String.raw`
local R, Q = KEYS[5], KEYS[6]
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
 * `read` and `stat`. ARGV: path, '1' to include the content.
 * Returns {'f', version[, content]}, {'d'} or nil.
 */
export const READ = script(
  'read',
  ' flags=no-writes',
  `
local path = ARGV[1]
if path == '' then return { 'd' } end
local version = redis.call('HGET', V, path)
if version then
  if ARGV[2] == '1' then return { 'f', version, redis.call('HGET', F, version) } end
  return { 'f', version }
end
if is_dir(path) then return { 'd' } end
return false
`,
);

/**
 * `describe`. ARGV: path, limit.
 * Returns {'f', version, content}, nil, or {'d', size, count, entries} where entries holds one
 * line per entry, "{d|f}{size}\t{relative path}", in listing order, at most `limit` of them.
 */
export const DESCRIBE = script(
  'describe',
  ' flags=no-writes',
  String.raw`
local dir, limit = ARGV[1], tonumber(ARGV[2])
if dir ~= '' then
  local version = redis.call('HGET', V, dir)
  if version then return { 'f', version, redis.call('HGET', F, version) } end
  if not is_dir(dir) then return false end
end

-- Every visible entry at depth 1 and 2 counts, from counts alone: the visible children of dir,
-- and those of each visible child directory.
local count = visible_count(dir)
each_child('\1', dir, function(name)
  count = count + visible_count(join(dir, name))
end)

-- The first limit entries in listing order: each directory right before its own children.
local lines, n = {}, 0
local function add(parent, name, relative)
  local path = join(parent, name)
  local directory = redis.call('ZSCORE', I, '\1' .. parent .. '\0' .. name)
  n = n + 1
  lines[n] = (directory and 'd' or 'f') .. (redis.call('HGET', S, path) or '0') .. '\t' .. relative
  return directory, path
end
each_child('', dir, function(name)
  if n >= limit then return true end
  local directory, path = add(dir, name, name)
  if directory then
    each_child('', path, function(child)
      if n >= limit then return true end
      add(path, child, name .. '/' .. child)
    end)
  end
end)
return { 'd', redis.call('HGET', S, dir) or '0', count, table.concat(lines, '\n') }
`,
);

/**
 * `list`. ARGV: directory. Returns one line per file beneath it, "{size}\t{path}", in any order
 * ('' when the directory does not exist).
 */
export const LIST = script(
  'list',
  ' flags=no-writes',
  String.raw`
local dir = ARGV[1]
if not is_dir(dir) then return '' end
local ranges
if dir == '' then
  ranges = { { '[\0', '(\1' }, { '[\2', '+' } }
else
  ranges = { { '[' .. dir .. '\0', '(' .. dir .. '\1' }, { '[' .. dir .. '/', '(' .. dir .. '0' } }
end
local lines = {}
for _, range in ipairs(ranges) do
  local low = range[1]
  while true do
    local batch = redis.call('ZRANGEBYLEX', I, low, range[2], 'LIMIT', 0, 1000)
    for i = 1, #batch do
      local path = path_of(batch[i])
      if redis.call('HEXISTS', V, path) == 1 then
        lines[#lines + 1] = (redis.call('HGET', S, path) or '0') .. '\t' .. path
      end
    end
    if #batch < 1000 then break end
    low = '(' .. batch[#batch]
  end
end
return table.concat(lines, '\n')
`,
);

/**
 * `write`. ARGV: path, content, new version, op, fence, expect ('' | 'absent' | 'version'),
 * expected version. Returns {'ok', version} or {'E', code, path}.
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
if current then
  delta = delta - tonumber(redis.call('HGET', S, path) or '0')
  redis.call('HDEL', F, current)
end
redis.call('HSET', F, version, content)
redis.call('HSET', V, path, version)
redis.call('HSET', S, path, #content)
if not current then
  redis.call('ZADD', I, 0, m)
  add_parents(node, existing)
end
add_size(node, delta)
receipt(op, now, version)
return { 'ok', version }
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
local weight
if redis.call('HEXISTS', V, path) == 1 then
  weight = tonumber(redis.call('HGET', S, path) or '0')
  redis.call('HDEL', F, redis.call('HGET', V, path))
  redis.call('HDEL', V, path)
  redis.call('HDEL', S, path)
  redis.call('ZREM', I, m)
elseif redis.call('ZSCORE', I, '\1' .. m) then
  local n = count_beneath(path)
  if n > tonumber(ARGV[4]) then return { 'E', 'TOO_MANY', n } end
  weight = tonumber(redis.call('HGET', S, path) or '0')
  local paths = {}
  for _, entry in ipairs(members_beneath('', path)) do paths[#paths + 1] = path_of(entry) end
  local versions = {}
  for i = 1, #paths, 500 do
    for _, version in ipairs(redis.call('HMGET', V, unpack(paths, i, math.min(i + 499, #paths)))) do
      if version then versions[#versions + 1] = version end
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
