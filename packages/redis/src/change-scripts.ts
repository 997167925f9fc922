// The change scripts: write, remove and move, each one atomic step that checks everything before
// its first write, records its operation id with its outcome (replays answer from it), refuses to
// apply past its fence, keeps the namespace's totals (KEYS[7]) with which it judges the quota, and
// records a version of every file it changes when history is on (see change-prelude.ts). A move or
// delete of a folder of more than FOLDER_STEP_ENTRIES entries checks everything in its step too,
// then writes a journal, and bounded steps do the rest (step-scripts.ts).
import { CHANGE_PRELUDE, FOLDER_STEP_ENTRIES } from './change-prelude.js';
import { script } from './scripts.js';

/**
 * `write`. ARGV: path, content, new version (without history), op, fence, expect ('' | 'absent' |
 * 'version'), expected version, max bytes, max files, receipt ('' records the version), file id
 * for a new file ('' for a new one), SHA-256 of the content (base64, with history), then the
 * history block (13 on). Returns {'ok', version or receipt, 'new'} ({'ok', recorded} for a replay)
 * or {'E', code, path} ({'E', 'QUOTA', kind, n, max} past the quota).
 */
export const WRITE = script(
  'write',
  '',
  String.raw`
${CHANGE_PRELUDE}
local path, content, op = ARGV[1], ARGV[2], ARGV[4]
local done = redis.call('HGET', R, op)
if done then
  -- A write's receipt: its version, NUL, the file's entry and size as it left them.
  local nul = string.find(done, '\0', 1, true)
  if not nul then return { 'ok', done } end
  local entry_at, size = string.match(done, '^[^%z]*%z(.*)%z(%d+)$')
  return { 'ok', string.sub(done, 1, nul - 1), false, entry_at, size }
end
local now = now_ms()
if now > tonumber(ARGV[5]) then return { 'E', 'LATE', now } end

local node, existing, refused = file_place(path)
if refused then return refused end
local current = redis.call('HGET', V, path)
local current_key = current and entry_of(current)
local expect = ARGV[6]
if (expect == 'absent' and current) or (expect == 'version' and current_key ~= ARGV[7]) then
  return { 'E', 'CONFLICT', path }
end
local delta = #content
if current then delta = delta - tonumber(redis.call('HGET', S, path) or '0') end
local totals = totals_of(true)
local breach = quota_breach(ARGV[8], ARGV[9], delta, not current)
if breach then return breach end

local h = history_args(13, op)
h.at = change_time(now, totals.last)
local seq = h.on and next_seq()
-- With history the content is keyed by its version's sequence number, which the version shares.
local key = seq and int(seq) or ARGV[3]
local r
if current then
  r = file_record(path, current, key, h.at)
  release(current_key)
else
  r = { id = ARGV[11] ~= '' and ARGV[11] or new_file_id(path, key), created = h.at }
end
r.key, r.sha, r.vseq = key, ARGV[12], seq and key or ''
put_file(node, existing, path, r, content, not current, h.at, delta)
if seq then
  retain(key)
  record(h, seq, r.id, current and OP_MODIFIED or OP_CREATED, path, false, ARGV[12], false, false)
end
changed_file(h, totals.registered)
local outcome = ARGV[10] ~= '' and ARGV[10] or key
local made = entry(r)
receipt(op, now, ARGV[10] ~= '' and outcome or key .. '\0' .. made .. '\0' .. #content)
return { 'ok', outcome, 'new', made, #content }
`,
);

/**
 * `remove`. ARGV: path, op, fence, most entries, then the history block (5 on). Returns 1, 0
 * (nothing there), {'steps'} (a large folder: its journal is written, the steps do the rest), or
 * {'E', code, x}.
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

local h = history_args(5, op)
h.at = change_time(now)
local node = walk(path)
local m = node.mem[node.k]
local weight, removed
local gone = {} -- { path, file id } of each file removed
local value = redis.call('HGET', V, path)
-- An expectation (ARGV[13] '1'): a file must be at path with this id (ARGV[14], '' any) and hash
-- (ARGV[15], '' any; when its hash is not computed yet, ARGV[16] is a content key whose hash the
-- driver computed, ARGV[17]).
if ARGV[13] == '1' and (value or redis.call('ZSCORE', I, '\1' .. m)) then
  if not value then return { 'E', 'CONFLICT', path } end
  local r = file_record(path, value, h.at, h.at)
  if ARGV[14] ~= '' and r.id ~= ARGV[14] then return { 'E', 'CONFLICT', path } end
  if ARGV[15] ~= '' then
    local sha = r.sha
    if sha == '' and r.key == ARGV[16] then sha = ARGV[17] end
    if sha == '' then return { 'E', 'NEEDSHA', r.key, redis.call('HGET', F, r.key) } end
    if sha ~= ARGV[15] then return { 'E', 'CONFLICT', path } end
  end
end
if value then
  total_bytes() -- made first when missing, so that add_bytes takes from the right total
  weight = tonumber(redis.call('HGET', S, path) or '0')
  removed = weight
  local r = file_record(path, value, h.at, h.at)
  local key, id = r.key, r.id
  unindex_file(path, id)
  gone[1] = { path, id }
  release(key)
  redis.call('HDEL', V, path)
  redis.call('HDEL', S, path)
  redis.call('ZREM', I, m)
  redis.call('ZREM', E, path)
elseif redis.call('ZSCORE', I, '\1' .. m) then
  local n = count_beneath(path)
  if n > tonumber(ARGV[4]) then return { 'E', 'TOO_MANY', n } end
  total_bytes()
  weight = tonumber(redis.call('HGET', S, path) or '0')
  if n > ${FOLDER_STEP_ENTRIES} then
    -- Too many for one script: the journal, then the steps (step-scripts.ts).
    redis.call('HSET', T, 'mv', cmsgpack.pack({ kind = 'remove', from = path, op = op, h = h, weight = weight }))
    return { 'steps' }
  end
  local paths = {}
  for _, entry in ipairs(members_beneath('', path)) do paths[#paths + 1] = path_of(entry) end
  local keys, files = {}, {}
  removed = 0
  for i = 1, #paths, 500 do
    local last = math.min(i + 499, #paths)
    local found = redis.call('HMGET', V, unpack(paths, i, last))
    local sizes = redis.call('HMGET', S, unpack(paths, i, last))
    for j = 1, #found do
      if found[j] then
        local file = paths[i + j - 1]
        local r = file_record(file, found[j], h.at, h.at)
        local key, id = r.key, r.id
        unindex_file(file, id)
        keys[#keys + 1] = key
        files[#files + 1] = file
        gone[#gone + 1] = { file, id }
        removed = removed + (tonumber(sizes[j]) or 0)
      end
    end
  end
  release_all(keys)
  chunked('HDEL', V, paths)
  chunked('HDEL', S, paths)
  chunked('ZREM', E, files)
  remove_beneath(path)
  redis.call('HDEL', S, path)
  redis.call('ZREM', I, m, '\1' .. m)
else
  return 0
end
add_size(node, -weight)
add_bytes(-removed)
prune(node)
if h.on then
  for _, file in ipairs(gone) do record(h, next_seq(), file[2], OP_DELETED, file[1], false, false, false, false) end
end
changed(h)
receipt(op, now, '1')
return 1
`,
);

/**
 * `move`. ARGV: from, to, op, fence, most entries, then the history block (6 on). Returns {'ok'},
 * {'steps'} (a large folder: its journal is written, the steps do the rest), or {'E', code, x}.
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

local h = history_args(6, op)
local totals = totals_of(false)
h.at = change_time(now, totals.last)
local weight
local files = {} -- { old path, new path, record } of each file moved (its entry is written last)
if file then
  local size = redis.call('HGET', S, from)
  weight = tonumber(size or '0')
  files[1] = { from, to, file_record(from, redis.call('HGET', V, from), h.at, h.at) }
  if size then redis.call('HSET', S, to, size) end
  redis.call('HDEL', V, from)
  redis.call('HDEL', S, from)
  redis.call('ZREM', I, sm)
  redis.call('ZADD', I, 0, tm)
else
  local n = count_beneath(from)
  local cut = #from + 1
  if n > tonumber(ARGV[5]) then return { 'E', 'TOO_MANY', n } end
  weight = tonumber(redis.call('HGET', S, from) or '0')
  if n > ${FOLDER_STEP_ENTRIES} then
    -- Too many for one script: the journal, then the steps (step-scripts.ts). The steps would
    -- never end with the target beneath the folder, which the contract rules out anyway.
    if string.sub(to, 1, cut) == from .. '/' then return { 'E', 'PATH_CONFLICT', from } end
    redis.call('HSET', T, 'mv', cmsgpack.pack({ kind = 'move', from = from, to = to, op = op, h = h,
      weight = weight, registered = totals.registered }))
    return { 'steps' }
  end
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
  for i = 1, #old, 500 do
    local last = math.min(i + 499, #old)
    local values = redis.call('HMGET', V, unpack(old, i, last))
    local sizes = redis.call('HMGET', S, unpack(old, i, last))
    local size_fields = {}
    for j = i, last do
      local now_at = to .. string.sub(old[j], cut)
      local value, size = values[j - i + 1], sizes[j - i + 1]
      if value then files[#files + 1] = { old[j], now_at, file_record(old[j], value, h.at, h.at) } end
      if size then
        size_fields[#size_fields + 1] = now_at
        size_fields[#size_fields + 1] = size
      end
    end
    if #size_fields > 0 then redis.call('HSET', S, unpack(size_fields)) end
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
move_size(source, target, weight)
prune(source)
-- A move is a change of each file it moves (expiry counts from it, and its record's time); a
-- renamed version shares the file's content, and its hash is the file's (or, when that is not
-- computed yet, that of the file's newest version when it has that content); it becomes the
-- version holding the file's content.
for _, moved in ipairs(files) do
  local r = moved[3]
  redis.call('ZREM', E, moved[1])
  redis.call('ZADD', E, h.at, moved[2])
  redis.call('ZREM', K, remap(moved[1], true))
  if h.on then
    if r.sha == '' then r.sha = known_sha(r.id, r.key) or '' end
    local seq = next_seq()
    retain(r.key)
    record(h, seq, r.id, OP_RENAMED, moved[2], moved[1], r.sha, r.key, false)
    r.vseq = int(seq)
  end
  r.changed = h.at
  redis.call('HSET', V, moved[2], entry(r))
  index_file(moved[2], r.id)
end
changed_file(h, totals.registered)
receipt(op, now, 'ok')
return { 'ok' }
`,
);
