// The Lua scripts: each driver call is one of them, run by Redis in one atomic step on the keys of
// one namespace (one hash tag, so one Cluster slot). This file has what every script shares (the
// layout below, the walks of the index) and the read scripts, which carry `flags=no-writes`; the
// change scripts (change-scripts.ts, edit-script.ts) carry a shebang without it, so that Redis
// refuses them before they start when memory is full instead of stopping one half-way. Each
// script checks everything before its first write.
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
// Contents (KEYS[1]) are keyed by a content key (the file's version), and the versions (KEYS[2]) by
// path, each `{content key}\t{file id}`: a move renames the short version fields and leaves the
// contents where they are, so moving a folder costs the same whatever its files hold. History
// (history-scripts.ts) keeps the contents of past versions in the same hash, shared with the live
// file where they are the same.
//
// Sizes (KEYS[4]): for a file, its bytes; for directory D, the total bytes of the files beneath D
// with no hidden segment below D. A file's size change is added to each ancestor at or below the file's deepest hidden
// segment (to every ancestor when none is hidden), so `view` of a hidden folder needs no special
// case.
//
// Changes carry the operation id: the outcome of a call that changed something is recorded under
// it (KEYS[5], timed in KEYS[6], kept 10 minutes), and a replayed call returns that outcome. They
// also carry a fence, the command's deadline on the server's clock, past which they refuse to
// apply: a request that reaches Redis after the engine gave up on it (a resend after a long
// outage, bytes stuck in a paused server) can no longer land after the model was told it may not
// have been saved. The namespace's totals (KEYS[7]: its bytes; its files are the fields of KEYS[2])
// are kept by every change, which judges the quota against them in the same step.
import { createHash } from 'node:crypto';
import { CHANGE_PRELUDE, MOVING_REPLY } from './change-prelude.js';
import { preludeFor } from './lua-prelude.js';

/** A script and its SHA-1, for EVALSHA. */
export interface Script {
  readonly name: string;
  readonly source: string;
  readonly sha: string;
}

/**
 * A script of the given `#!lua` flags: the shared prelude, then `body`. A body that starts with
 * the change prelude (`${CHANGE_PRELUDE}` on its first line) has both; either way only the prelude
 * functions the body calls are kept (lua-prelude.ts). `head`, when given, runs before the prelude:
 * a fast path that must make no function (it may use KEYS and ARGV only). Every such script is on
 * the keys of one namespace (KEYS[1] its contents) and starts with MOVING_GUARD, unless `guarded`
 * is false (the steps themselves, and the erasure of a namespace).
 */
export function script(name: string, flags: string, body: string, head = '', guarded = true): Script {
  const changes = body.startsWith(`\n${CHANGE_PRELUDE}`);
  const prelude = changes ? `${PRELUDE}\n${CHANGE_PRELUDE}` : PRELUDE;
  const rest = changes ? body.slice(CHANGE_PRELUDE.length + 1) : body;
  const guard = guarded ? MOVING_GUARD : '';
  return rawScript(name, flags, `${guard}${head}${preludeFor(prelude, rest)}\n${rest}`);
}

/**
 * The first line of every script of a namespace: while a folder move or delete is under way in
 * steps (its journal `mv` in the namespace's totals, step-scripts.ts), refuse before reading
 * anything, so that nothing sees or changes the folder half-way; the driver then runs the steps
 * and sends the call again (calls.ts). One HEXISTS: an ordinary call stays one round trip.
 */
const MOVING_GUARD = `if redis.call('HEXISTS', string.sub(KEYS[1], 1, -3) .. ':t', 'mv') == 1 then return redis.error_reply('${MOVING_REPLY} a folder move or delete is under way in this namespace') end\n`;

/** A script of the given `#!lua` flags and source, without the prelude. */
export function rawScript(name: string, flags: string, body: string): Script {
  const source = `#!lua${flags}\n${body}`;
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

-- A file's entry in V: its content key (the version readers see) and its file id (none for a file
-- written before ids were kept). The entry goes on with the file's record (change-prelude.ts).
local function entry_of(value)
  local tab = string.find(value, '\t', 1, true)
  if not tab then return value, nil end
  local next_tab = string.find(value, '\t', tab + 1, true)
  return string.sub(value, 1, tab - 1), string.sub(value, tab + 1, next_tab and next_tab - 1 or -1)
end

-- A path between its stored form (layout.ts) and the path itself (up: stored to original), one
-- character at a time; nearly every path has no byte of those characters and is returned as is.
local function remap(s, up)
  if not string.find(s, '[\238-\244]') then return s end
  local out = {}
  for ch in string.gmatch(s, '[^\128-\191][\128-\191]*') do
    local b = string.byte(ch, 1)
    if b >= 238 then
      local cp
      if b < 240 then
        cp = (b - 224) * 4096 + (string.byte(ch, 2) - 128) * 64 + string.byte(ch, 3) - 128
      else
        cp = (b - 240) * 262144 + (string.byte(ch, 2) - 128) * 4096 + (string.byte(ch, 3) - 128) * 64
          + string.byte(ch, 4) - 128
      end
      if up then
        if cp >= 0x10E000 then cp = cp - 0x100000 elseif cp >= 0xE000 then cp = cp + 0x2000 end
      else
        if cp >= 0x10000 then cp = cp - 0x2000 elseif cp >= 0xE000 then cp = cp + 0x100000 end
      end
      if cp < 0x10000 then
        ch = string.char(224 + math.floor(cp / 4096), 128 + math.floor(cp / 64) % 64, 128 + cp % 64)
      else
        ch = string.char(240 + math.floor(cp / 262144), 128 + math.floor(cp / 4096) % 64,
          128 + math.floor(cp / 64) % 64, 128 + cp % 64)
      end
    end
    out[#out + 1] = ch
  end
  return table.concat(out)
end

-- Records a read of the file at path for expiry (refreshOnRead): its time in the expiry index
-- (KEYS[11]), never earlier than its last change.
local function touch(path)
  local t = redis.call('TIME')
  redis.call('ZADD', KEYS[11], 'GT', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), path)
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

const READ_BODY = `
local path = ARGV[1]
if path == '' then return { 'd' } end
local value = redis.call('HGET', V, path)
if value then
  local version = entry_of(value)
  if ARGV[3] == '1' then touch(path) end
  if ARGV[2] == '1' then return { 'f', version, redis.call('HGET', F, version) } end
  return { 'f', version }
end
if is_dir(path) then return { 'd' } end
return false
`;

/**
 * `read` and `stat`. ARGV: path, '1' to include the content. Returns {'f', version[, content]},
 * {'d'} or nil.
 */
export const READ = script('read', ' flags=no-writes', READ_BODY);

/** `read` that records the read (ARGV[3] '1'), for expiry with `refreshOnRead`: KEYS up to 11. */
export const READ_TOUCH = script('read-touch', '', READ_BODY);

// A file, before the prelude makes any function: a view of a file (nearly every view) makes no
// closure at all (see lua-prelude.ts). Its version is its entry in V up to the tab (entry_of), and
// a touched read is recorded as touch() does.
const DESCRIBE_FILE = String.raw`
if ARGV[1] ~= '' then
  local value = redis.call('HGET', KEYS[2], ARGV[1])
  if value then
    local tab = string.find(value, '\t', 1, true)
    local version = tab and string.sub(value, 1, tab - 1) or value
    if ARGV[3] == '1' then
      local t = redis.call('TIME')
      redis.call('ZADD', KEYS[11], 'GT', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), ARGV[1])
    end
    return { 'f', version, redis.call('HGET', KEYS[1], version) }
  end
end
`;

const DESCRIBE_BODY = String.raw`
local dir, limit = ARGV[1], tonumber(ARGV[2])
if dir ~= '' and not is_dir(dir) then return false end

-- Which visible children are directories: one walk of the directories' region, instead of a
-- ZSCORE for each child.
local directories = {}
each_child('\1', dir, function(name) directories[name] = true end)

-- The first limit entries in listing order, each directory right before its own children; their
-- sizes are read at the end, all in one HMGET.
local kinds, paths, relatives, n, cut = {}, {}, {}, 0, false
local function add(directory, path, relative)
  n = n + 1
  kinds[n] = directory and 'd' or 'f'
  paths[n] = path
  relatives[n] = relative
end
each_child('', dir, function(name)
  if n >= limit then cut = true return true end
  local path = join(dir, name)
  add(directories[name], path, name)
  if directories[name] then
    each_child('', path, function(child)
      if n >= limit then cut = true return true end
      local directory = redis.call('ZSCORE', I, '\1' .. path .. '\0' .. child)
      add(directory, path .. '/' .. child, name .. '/' .. child)
    end)
  end
end)

-- Every visible entry at depth 1 and 2 counts: when the walk was not cut, that is the entries it
-- found; else from counts alone, the visible children of dir and of each visible child directory.
local count = n
if cut then
  count = visible_count(dir)
  for name in pairs(directories) do count = count + visible_count(join(dir, name)) end
end

local own = redis.call('HGET', S, dir) or '0'
local lines = {}
for i = 1, n, 500 do
  local last = math.min(i + 499, n)
  local sizes = redis.call('HMGET', S, unpack(paths, i, last))
  for j = i, last do lines[j] = kinds[j] .. (sizes[j - i + 1] or '0') .. '\t' .. relatives[j] end
end
return { 'd', own, count, table.concat(lines, '\n') }
`;

/**
 * `describe`. ARGV: path, limit.
 * Returns {'f', version, content}, nil, or {'d', size, count, entries} where entries holds one
 * line per entry, "{d|f}{size}\t{relative path}", in listing order, at most `limit` of them.
 */
export const DESCRIBE = script('describe', ' flags=no-writes', DESCRIBE_BODY, DESCRIBE_FILE);

/** `describe` that records the read of a file (ARGV[3] '1'), for `refreshOnRead`: KEYS up to 11. */
export const DESCRIBE_TOUCH = script('describe-touch', '', DESCRIBE_BODY, DESCRIBE_FILE);

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
