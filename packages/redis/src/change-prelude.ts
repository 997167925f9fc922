// What every change script shares: receipts, the fence, the namespace's totals and quota, the
// walk up a path and the sizes of its ancestors (from wave 2), and what history, expiry and the
// namespace registry add to every change (this wave): version records, shared contents, pruning,
// the expiry index and the registration of a namespace that comes to hold something or nothing.
//
// KEYS: 1 files, 2 versions, 3 index, 4 sizes, 5 receipts, 6 receipt times, 7 totals, 8 content
// references, 9 version records, 10 version paths, 11 expiry, 12 registry (see layout.ts, and
// registry.ts for the registry). A file's versions are also in `{namespace}:h:{file id}`, a key of
// the same hash tag that no script declares (Redis allows keys of the declared slot).
//
// A version record is a member of KEYS[9] scored by its sequence number, packed with cmsgpack:
//   1 seq, 2 file id, 3 path | false, 4 previous path | false, 5 operation (OP_*), 6 time (ms),
//   7 actor type | false, 8 actor id | false, 9 command (number), 10 operation id,
//   11 tool use id | false, 12 restored from (seq) | false, 13 redacted at | false,
//   14 SHA-256 (base64) | '' (not computed yet) | false (none), 15 content key | false,
//   16 size | false
// A version with content has it in KEYS[1]: under its own sequence number (created, modified,
// restored), or under field 15 (renamed: the file's content, shared; imported). Its size is the
// length of that content (field 16 only for an imported version whose content was not given).
// Lua has no SHA-256 (a Lua one costs about 7 ms per KiB of script time here), so the driver
// sends the hash of what it writes; an edit made here records '' and the driver computes the hash
// from the content whenever the version is read (the content never changes under its key, so the
// hash is the same whenever it is computed).
//
// Contents are shared: a file's content and its newest version's are one field, and a renamed
// version shares the content of the file it moved. KEYS[8] counts references beyond the first
// (absent: one), so a content is removed with its last reference.

import { MAX_VERSION_SEQUENCE } from '@memdir/core/driver';

/**
 * How far below 2^53 - 1 (the kit's MAX_VERSION_SEQUENCE, the last id that stays exact in
 * JavaScript and in a sorted set's score) a namespace's version counter stops: a change is refused
 * before its first write when the counter is past that, since a script that failed half-way could
 * not undo its writes, and one change (a folder's rename) takes an id per file.
 */
export const SEQUENCE_MARGIN = 2 ** 20;

/** The error a change script raises when its namespace's counter is past the exact range (errors.ts). */
export const OUT_OF_IDS_REPLY = 'MEMDIR_OUT_OF_IDS';

/**
 * The most files and folders one step of a folder move or delete handles, and the most a move or
 * delete handles in its own one script (step-scripts.ts): about 2.5 ms of Redis time with history
 * on, on a quiet server.
 */
export const FOLDER_STEP_ENTRIES = 64;

/** The error every script of a namespace raises while a stepped move or delete is under way. */
export const MOVING_REPLY = 'MEMDIR_MOVING';

/** What the change scripts share: everything above, in Lua. */
export const CHANGE_PRELUDE = String.raw`
local R, Q, T, N, O, P, E, G = KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10], KEYS[11], KEYS[12]
local K, D = string.sub(KEYS[1], 1, -3) .. ':k', string.sub(KEYS[1], 1, -3) .. ':d'
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

-- Where a whole file at path goes: its node (walk) and its deepest existing ancestor (settle); or,
-- third, the refusal when a file lies above path or a folder is at it.
local function file_place(path)
  local node = walk(path)
  local existing, file = settle(node)
  if file then return nil, nil, { 'E', 'PATH_CONFLICT', file } end
  if redis.call('ZSCORE', I, '\1' .. node.mem[node.k]) then return nil, nil, { 'E', 'PATH_CONFLICT', path } end
  return node, existing, nil
end

-- A file's entry in V (r from file_record): content key, file id, SHA-256 (base64, '' while not
-- computed: an edit made here), when it was made and last changed (ms), and the sequence number
-- of the version holding its content ('' for none).
local function entry(r)
  return r.key .. '\t' .. r.id .. '\t' .. r.sha .. '\t' .. string.format('%d', r.created) .. '\t'
    .. string.format('%d', r.changed) .. '\t' .. r.vseq
end

-- A file in the indexes of records: its path itself in K (byte order of UTF-8), its id in D.
local function index_file(path, id)
  redis.call('ZADD', K, 0, remap(path, true))
  redis.call('HSET', D, id, path)
end

local function unindex_file(path, id)
  redis.call('ZREM', K, remap(path, true))
  redis.call('HDEL', D, id)
end

-- Puts content under r.key as the file at path (node is walk(path)) with record r (changed now,
-- at): a new file is added to the index with the missing folders above it (those deeper than
-- existing) and to the indexes of records (the namespace's first file marks them complete, rk);
-- then its expiry time, the sizes of the folders above it and the namespace's bytes, by delta.
-- Every change that writes a whole file (write, edit, restore, update) ends with it.
local function put_file(node, existing, path, r, content, new, at, delta)
  r.changed = at
  redis.call('HSET', F, r.key, content)
  redis.call('HSET', V, path, entry(r))
  redis.call('HSET', S, path, #content)
  if new then
    redis.call('ZADD', I, 0, node.mem[node.k])
    add_parents(node, existing)
    if redis.call('HLEN', V) == 1 then redis.call('HSET', T, 'rk', 1) end
  end
  if new or r.up then index_file(path, r.id) end
  redis.call('ZADD', E, at, path)
  add_size(node, delta)
  add_bytes(delta)
end

-- add_size(source, -weight) then add_size(target, weight), in one pass: an ancestor of both (for
-- a rename within a folder, every one) keeps its size without a call.
local function move_size(source, target, weight)
  if weight == 0 then return end
  local deltas, order = {}, {}
  for _, side in ipairs({ { source, -weight }, { target, weight } }) do
    local node, h = side[1], 0
    for i = 1, node.k do
      if hidden(node.segs[i]) then h = i end
    end
    for i = h, node.k - 1 do
      local dir = node.anc[i]
      if deltas[dir] == nil then
        order[#order + 1] = dir
        deltas[dir] = 0
      end
      deltas[dir] = deltas[dir] + side[2]
    end
  end
  for _, dir in ipairs(order) do
    if deltas[dir] ~= 0 then redis.call('HINCRBY', S, dir, deltas[dir]) end
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

local DAY_MS = 86400000
local PRUNE_PER_CHANGE = 4
local OP_CREATED, OP_MODIFIED, OP_RENAMED, OP_DELETED, OP_RESTORED = 1, 2, 3, 4, 5
local BASE = string.sub(KEYS[1], 1, -3)

local function int(n) return string.format('%d', n) end
local function seq16(n) return string.format('%016d', n) end
local function file_key(id) return BASE .. ':h:' .. id end

-- The time of a change: the server's, but never before the namespace's last one, so that times
-- never decrease along version ids (listings by time and retention rely on it).
-- last: the namespace's last change time when already read (totals_of), else read here.
local function change_time(now, last)
  local t = last
  if t == nil then
    local at = redis.call('HMGET', T, 'at', 'vt')
    t = math.max(tonumber(at[1]) or 0, tonumber(at[2]) or 0)
  end
  if now < t then return t end
  return now
end

-- What a write, an edit or a move needs of the namespace's totals, in one call: the time of its
-- last change (for change_time) and whether it is registered (for changed_file); with
-- ensure_bytes, its bytes are made first when missing, so that add_bytes adds to the right total.
local function totals_of(ensure_bytes)
  local t = redis.call('HMGET', T, 'bytes', 'at', 'vt', 'reg')
  if ensure_bytes and not t[1] then total_bytes() end
  return { last = math.max(tonumber(t[2]) or 0, tonumber(t[3]) or 0), registered = t[4] ~= false }
end

-- The history block of ARGV, from position at: record ('1' or ''), actor type, actor id, command,
-- tool use id ('' none, else '=' and the id), keep versions, keep ms, the registry members of
-- the namespace (registry.ts). Every change script has it, last.
local function history_args(at, op)
  local h = { on = ARGV[at] == '1', members = ARGV[at + 7] or '', op = op }
  if h.on then
    -- Before the change's first write: past it, ids would round (see SEQUENCE_MARGIN).
    if (tonumber(redis.call('HGET', T, 'seq')) or 0) > ${MAX_VERSION_SEQUENCE - SEQUENCE_MARGIN} then
      error({ err = '${OUT_OF_IDS_REPLY} the version counter is past the exact range' })
    end
    h.actor_type = ARGV[at + 1] ~= '' and ARGV[at + 1] or false
    h.actor_id = h.actor_type and ARGV[at + 2] or false
    h.cmd = tonumber(ARGV[at + 3])
    h.tool = ARGV[at + 4] ~= '' and string.sub(ARGV[at + 4], 2) or false
    h.keep_versions = math.max(1, tonumber(ARGV[at + 5]))
    h.keep_ms = tonumber(ARGV[at + 6])
  end
  return h
end

-- A new file's id, unique in the namespace: derived from where it is and the change's content
-- key (salt), which no other change has.
local function new_file_id(path, salt)
  return 'mem_' .. string.sub(redis.sha1hex(BASE .. '\0' .. path .. '\0' .. salt), 1, 22)
end

-- A file's entry in V, with its file id: a file written before ids were kept gets one now, which
-- the change writes back.
local function file_id_of(path, value, salt)
  local key, id = entry_of(value)
  return key, id or new_file_id(path, salt)
end

local function retain(key) redis.call('HINCRBY', N, key, 1) end

local function release(key)
  local extra = tonumber(redis.call('HGET', N, key))
  if not extra then redis.call('HDEL', F, key)
  elseif extra <= 1 then redis.call('HDEL', N, key)
  else redis.call('HINCRBY', N, key, -1) end
end

-- release() for many contents, in chunks of one HMGET.
local function release_all(keys)
  local gone = {}
  for i = 1, #keys, 500 do
    local last = math.min(i + 499, #keys)
    local refs = redis.call('HMGET', N, unpack(keys, i, last))
    for j = i, last do
      local extra = tonumber(refs[j - i + 1])
      if not extra then gone[#gone + 1] = keys[j]
      elseif extra <= 1 then redis.call('HDEL', N, keys[j])
      else redis.call('HINCRBY', N, keys[j], -1) end
    end
  end
  for i = 1, #gone, 1000 do redis.call('HDEL', F, unpack(gone, i, math.min(i + 999, #gone))) end
end

local function next_seq() return redis.call('HINCRBY', T, 'seq', 1) end

-- The record of version seq, and its member; nil when it is not kept.
local function version_at(seq)
  local found = redis.call('ZRANGEBYSCORE', O, seq, seq)
  if #found == 0 then return nil end
  return cmsgpack.unpack(found[1]), found[1]
end

-- Where a version's content is (nil: none, for a deletion or once redacted).
local function content_key(rec)
  if rec[13] or rec[5] == OP_DELETED then return nil end
  return rec[15] or int(rec[1])
end

-- Records version seq of a change (h: the history block, with op and at).
local function add_version(h, seq, id, operation, path, previous, sha, key, restored, size)
  local rec = { seq, id, path or false, previous or false, operation, h.at, h.actor_type, h.actor_id,
    h.cmd, h.op, h.tool, restored or false, false, sha, key or false, size or false }
  redis.call('ZADD', O, seq, cmsgpack.pack(rec))
  if path then redis.call('ZADD', P, 0, path .. '\0' .. seq16(seq)) end
  if previous then redis.call('ZADD', P, 0, previous .. '\0' .. seq16(seq)) end
  redis.call('ZADD', file_key(id), seq, int(seq))
end

-- Removes a version with its path entries and its reference to its content.
local function drop_version(rec, member)
  redis.call('ZREM', O, member)
  if rec[3] then redis.call('ZREM', P, rec[3] .. '\0' .. seq16(rec[1])) end
  if rec[4] then redis.call('ZREM', P, rec[4] .. '\0' .. seq16(rec[1])) end
  redis.call('ZREM', file_key(rec[2]), int(rec[1]))
  local key = content_key(rec)
  if key then release(key) end
end

-- Retention in the change's own step (the kit's prunable): at most limit of the file's versions
-- beyond its newest keep_versions, oldest first, while they are at least keep_ms old at time now.
local function prune_file(id, keep_versions, keep_ms, now, limit)
  local versions = file_key(id)
  local over = redis.call('ZCARD', versions) - keep_versions
  if over <= 0 then return 0 end
  local pruned = 0
  for _, seq in ipairs(redis.call('ZRANGE', versions, 0, math.min(over, limit) - 1)) do
    local rec, member = version_at(seq)
    -- Times never decrease along ids: once one is young, the newer ones are too.
    if not rec or now - rec[6] < keep_ms then break end
    drop_version(rec, member)
    pruned = pruned + 1
  end
  return pruned
end

-- Records a change of file id (seq from next_seq) and prunes the file, when history is on.
local function record(h, seq, id, operation, path, previous, sha, key, restored)
  if not h.on then return end
  add_version(h, seq, id, operation, path, previous, sha, key, restored, false)
  prune_file(id, h.keep_versions, h.keep_ms, h.at, PRUNE_PER_CHANGE)
end

-- The record of the file at path from its entry in V (value): r.key, r.id, r.sha, r.created,
-- r.changed, r.vseq. An entry written before records were kept gets them here, with r.up set (to
-- write back): an id (new, salted by salt, when it had none), and the hash and times its history
-- has, else its expiry time (its last change or touched read), else now.
local function file_record(path, value, salt, now)
  local f, n = {}, 0
  for part in string.gmatch(value .. '\t', '([^\t]*)\t') do
    n = n + 1
    f[n] = part
  end
  if n >= 6 then
    return { key = f[1], id = f[2], sha = f[3], created = tonumber(f[4]), changed = tonumber(f[5]), vseq = f[6] }
  end
  local r = { key = f[1], id = f[2] or new_file_id(path, salt), sha = '', vseq = '', up = true }
  local newest = redis.call('ZRANGE', file_key(r.id), -1, -1)
  if #newest > 0 then
    local rec = version_at(newest[1])
    if rec and content_key(rec) == r.key then r.vseq, r.sha, r.changed = int(rec[1]), rec[14] or '', rec[6] end
    local first = version_at(redis.call('ZRANGE', file_key(r.id), 0, 0)[1])
    if first then r.created = first[6] end
  end
  r.changed = r.changed or tonumber(redis.call('ZSCORE', E, path)) or now
  r.created = math.min(r.created or r.changed, r.changed)
  return r
end

-- The indexes of records (K, D) made complete once for a namespace written before they were kept
-- (rk in the totals marks them complete), with every entry of V brought up to a record.
local function ensure_records(now)
  if redis.call('HEXISTS', T, 'rk') == 1 then return end
  local paths = redis.call('HKEYS', V)
  if #paths == 0 then return end
  for i = 1, #paths, 500 do
    local last = math.min(i + 499, #paths)
    local values = redis.call('HMGET', V, unpack(paths, i, last))
    for j = i, last do
      local path = paths[j]
      local r = file_record(path, values[j - i + 1], now, now)
      if r.up then redis.call('HSET', V, path, entry(r)) end
      index_file(path, r.id)
    end
  end
  redis.call('HSET', T, 'rk', 1)
end

-- Removes the file at path (it is there) as a delete would: its entry, size, index and expiry
-- entries, the directories it leaves empty, its content (unless a version has it); records its
-- deletion when history is on. For drops and expiry, one file at a time.
local function remove_file(h, path)
  local node = walk(path)
  local r = file_record(path, redis.call('HGET', V, path), h.at, h.at)
  local key, id = r.key, r.id
  unindex_file(path, id)
  local size = tonumber(redis.call('HGET', S, path) or '0')
  release(key)
  redis.call('HDEL', V, path)
  redis.call('HDEL', S, path)
  redis.call('ZREM', I, node.mem[node.k])
  redis.call('ZREM', E, path)
  add_size(node, -size)
  add_bytes(-size)
  prune(node)
  if h.on then record(h, next_seq(), id, OP_DELETED, path, false, false, false, false) end
end

-- A version as a reply, appended to out: seq, file id, path, previous path, operation, time, actor
-- type, actor id, command, operation id, tool use id, restored from, redacted at, SHA-256 ('': to
-- compute from the content), size, content (when with_content, or when the hash is to be
-- computed; else nil). Returns the content it added.
local function version_fields(rec, out, with_content)
  local key = content_key(rec)
  local content = false
  if key and (with_content or rec[14] == '') then content = redis.call('HGET', F, key) or false end
  for i = 1, 14 do out[#out + 1] = rec[i] end
  out[#out + 1] = rec[16] or (key and redis.call('HSTRLEN', F, key)) or false
  out[#out + 1] = content
  return content
end

-- The sequence number of the newest version at or before time t (0 for none), by bisection:
-- times never decrease along ids.
local function seq_at(t)
  local low, high, found = 0, redis.call('ZCARD', O) - 1, 0
  while low <= high do
    local middle = math.floor((low + high) / 2)
    local entry = redis.call('ZRANGE', O, middle, middle, 'WITHSCORES')
    if cmsgpack.unpack(entry[1])[6] <= t then
      found = tonumber(entry[2])
      low = middle + 1
    else
      high = middle - 1
    end
  end
  return found
end

-- The SHA-256 of content key of file id, when its newest version has that content ('' when not
-- computed yet, nil when no kept version has it).
local function known_sha(id, key)
  local newest = redis.call('ZRANGE', file_key(id), -1, -1)
  if #newest == 0 then return nil end
  local rec = version_at(newest[1])
  if rec and content_key(rec) == key then return rec[14] or nil end
  return nil
end

-- After a change: a namespace that came to hold something (a file or a version) is registered,
-- one that came to hold nothing is removed from the registry, in this same step (registry.ts).
local function settle_registration(members)
  if members == '' then return end
  local full = redis.call('EXISTS', V) == 1 or redis.call('EXISTS', O) == 1
  local registered = redis.call('HEXISTS', T, 'reg') == 1
  if full == registered then return end
  for member in string.gmatch(members, '[^\1]+') do
    if full then redis.call('ZADD', G, 0, member) else redis.call('ZREM', G, member) end
  end
  if full then redis.call('HSET', T, 'reg', 1) else redis.call('HDEL', T, 'reg') end
end

-- The end of every change that changed a file: the namespace's time of last change, and its
-- registration.
local function changed(h)
  redis.call('HSET', T, 'at', h.at)
  settle_registration(h.members)
end

-- changed() for a change that leaves a file in place (a write, an edit): a namespace registered
-- before it holds something still, so only one that was not needs settling.
local function changed_file(h, registered)
  redis.call('HSET', T, 'at', h.at)
  if not registered then settle_registration(h.members) end
end
`;
