// The history scripts: each version was recorded by the change script that made it (see
// change-prelude.ts for the records); these read versions back (by every filter, a bounded number
// per call), restore one as a new version, redact one, and import versions from another store.
// Each is one atomic step on one namespace's keys.
import { CHANGE_PRELUDE } from './change-prelude.js';
import { script } from './scripts.js';

/** How many versions (or index entries) one read call looks at, at most. */
export const HISTORY_SCAN_LIMIT = 2_000;

/** How many bytes of contents one read call sends back for hashes still to compute (at least one). */
export const CONTENT_BUDGET = 4 * 1024 * 1024;

/**
 * `listVersions`. ARGV: path ('' all), file id ('' any), actor id ('' any), since ('' none),
 * until ('' none), operations (their numbers, '' all), cursor (a sequence number, exclusive; ''
 * from the newest), limit, scan limit, content budget. Returns {next sequence number | nil,
 * version fields...} (16 fields each, see version_fields), newest first.
 */
export const LIST_VERSIONS = script(
  'list-versions',
  ' flags=no-writes',
  String.raw`
${CHANGE_PRELUDE}
local path, id, actor, operations = ARGV[1], ARGV[2], ARGV[3], ARGV[6]
local since, till = tonumber(ARGV[4]), tonumber(ARGV[5])
local upper = tonumber(ARGV[7])
local limit, scan_limit, budget = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
local function at_or_beneath(p)
  return p and (p == path or string.sub(p, 1, #path + 1) == path .. '/')
end

-- The source, read downwards from an exclusive bound in pages of 100: a file's own versions; the
-- index entries of one path when nothing lies beneath it; else every version, filtered.
local by_path, fetch = path ~= '', nil
local function records_of(seqs)
  local found = {}
  for i, seq in ipairs(seqs) do found[i] = { tonumber(seq), version_at(seq) or false } end
  return found
end
if id ~= '' then
  local versions = file_key(id)
  fetch = function(below)
    local high = below and '(' .. int(below) or '+inf'
    return records_of(redis.call('ZREVRANGEBYSCORE', versions, high, '-inf', 'LIMIT', 0, 100))
  end
elseif by_path and redis.call('ZLEXCOUNT', P, '[' .. path .. '/', '(' .. path .. '0') == 0 then
  by_path = false
  fetch = function(below)
    local high = below and '(' .. path .. '\0' .. seq16(below) or '(' .. path .. '\1'
    local entries = redis.call('ZREVRANGEBYLEX', P, high, '[' .. path .. '\0', 'LIMIT', 0, 100)
    for i, entry in ipairs(entries) do entries[i] = string.sub(entry, -16) end
    return records_of(entries)
  end
else
  if till then
    local top = seq_at(till) + 1
    if not upper or top < upper then upper = top end
  end
  fetch = function(below)
    local high = below and '(' .. int(below) or '+inf'
    local found = {}
    for i, member in ipairs(redis.call('ZREVRANGEBYSCORE', O, high, '-inf', 'LIMIT', 0, 100)) do
      local rec = cmsgpack.unpack(member)
      found[i] = { rec[1], rec }
    end
    return found
  end
end

local function matches(rec)
  if by_path and not (at_or_beneath(rec[3]) or at_or_beneath(rec[4])) then return false end
  if actor ~= '' and rec[8] ~= actor then return false end
  if till and rec[6] > till then return false end
  if operations ~= '' and not string.find(operations, int(rec[5]), 1, true) then return false end
  return true
end

local out = { false }
local count, scanned, bytes = 0, 0, 0
local more, full = true, false
if upper and upper <= 1 then more = false end
while more and not full do
  local page = fetch(upper)
  for _, entry in ipairs(page) do
    if count == limit or scanned == scan_limit or bytes > budget then
      full = true
      break
    end
    local rec = entry[2]
    -- Times never decrease along ids: past since, nothing older matches.
    if rec and since and rec[6] < since then
      more = false
      break
    end
    upper = entry[1]
    scanned = scanned + 1
    if rec and matches(rec) then
      local content = version_fields(rec, out, false)
      count = count + 1
      if content then bytes = bytes + #content end
    end
  end
  if not full and #page < 100 then more = false end
end
if more then out[1] = int(upper) end
return out
`,
);

/** `readVersion`. ARGV: sequence number. Returns the version's fields with its content, or nil. */
export const READ_VERSION = script(
  'read-version',
  ' flags=no-writes',
  String.raw`
${CHANGE_PRELUDE}
local rec = version_at(tonumber(ARGV[1]))
if not rec then return false end
local out = {}
version_fields(rec, out, true)
return out
`,
);

/**
 * `treeAt`, one bounded part: ARGV mode ('v' a sequence number, 't' a time), its value, path ('',
 * or stored), cursor ('' to start), scan limit, content budget. Returns {cursor to go on from |
 * nil, entries...}, 6 fields each (seq, file id, path, size, SHA-256, content when the hash is
 * still to compute): for every file met in this part, its newest version at or before the point
 * when that is not a deletion, not redacted, and at or beneath path. A file met in several parts
 * comes back in each, the same.
 */
export const TREE_AT = script(
  'tree-at',
  ' flags=no-writes',
  String.raw`
${CHANGE_PRELUDE}
local bound = ARGV[1] == 'v' and tonumber(ARGV[2]) or seq_at(tonumber(ARGV[2]))
local path, cursor = ARGV[3], ARGV[4]
local scan_limit, budget = tonumber(ARGV[5]), tonumber(ARGV[6])
local out = { false }
local seen, scanned, bytes = {}, 0, 0
local function at_or_beneath(p)
  return p and (path == '' or p == path or string.sub(p, 1, #path + 1) == path .. '/')
end
local function consider(id)
  if seen[id] then return end
  seen[id] = true
  local found = redis.call('ZREVRANGEBYSCORE', file_key(id), bound, '-inf', 'LIMIT', 0, 1)
  if #found == 0 then return end
  local rec = version_at(found[1])
  if not rec or rec[5] == OP_DELETED or rec[13] or not at_or_beneath(rec[3]) then return end
  local key = content_key(rec)
  local content = false
  if rec[14] == '' then
    content = redis.call('HGET', F, key) or false
    if content then bytes = bytes + #content end
  end
  for _, field in ipairs({ rec[1], id, rec[3], rec[16] or redis.call('HSTRLEN', F, key), rec[14] }) do
    out[#out + 1] = field
  end
  out[#out + 1] = content
end

if path == '' then
  local below = cursor ~= '' and tonumber(cursor) or bound + 1
  while true do
    local members = redis.call('ZREVRANGEBYSCORE', O, '(' .. int(below), '-inf', 'LIMIT', 0, 100)
    for _, member in ipairs(members) do
      if scanned >= scan_limit or bytes > budget then
        out[1] = int(below)
        return out
      end
      local rec = cmsgpack.unpack(member)
      below, scanned = rec[1], scanned + 1
      consider(rec[2])
    end
    if #members < 100 then return out end
  end
end
-- The versions at the path, then those beneath it; the cursor is the region and its last member.
local regions = { { '[' .. path .. '\0', '(' .. path .. '\1' }, { '[' .. path .. '/', '(' .. path .. '0' } }
local region, low, last = 1, nil, nil
if cursor ~= '' then
  region = tonumber(string.sub(cursor, 1, 1))
  low = '(' .. string.sub(cursor, 2)
end
while region <= 2 do
  local range = regions[region]
  local entries = redis.call('ZRANGEBYLEX', P, low or range[1], range[2], 'LIMIT', 0, 100)
  for _, entry in ipairs(entries) do
    if scanned >= scan_limit or bytes > budget then
      out[1] = region .. last
      return out
    end
    last, scanned = entry, scanned + 1
    local rec = version_at(string.sub(entry, -16))
    if rec then consider(rec[2]) end
  end
  if #entries < 100 then
    region, low = region + 1, nil
  else
    low = '(' .. entries[#entries]
  end
end
return out
`,
);

/**
 * `restoreVersion`. ARGV: sequence number, to ('' for the version's path), expect ('' | 'null' |
 * 'sha' | 'key'), expected (SHA-256 in base64, or the content key), max file bytes, op, fence, max
 * bytes, max files, then the history block (10 on). Returns {'ok', version fields...}, or {'E',
 * code, ...}: NOT_FOUND, PATH_CONFLICT, CONFLICT, TOO_LARGE (path), QUOTA, LATE, NEEDSHA (content
 * key, content: the hash of the file there is not known yet; nothing was written), GONE (a replay
 * whose version was pruned since).
 */
export const RESTORE = script(
  'restore',
  '',
  String.raw`
${CHANGE_PRELUDE}
local op = ARGV[6]
local done = redis.call('HGET', R, op)
if done then
  local rec = version_at(tonumber(done))
  if not rec then return { 'E', 'GONE' } end
  local out = { 'ok' }
  version_fields(rec, out, false)
  return out
end
local now = now_ms()
if now > tonumber(ARGV[7]) then return { 'E', 'LATE', now } end

local source = version_at(tonumber(ARGV[1]))
local source_key = source and content_key(source)
local content = source_key and redis.call('HGET', F, source_key)
if not content then return { 'E', 'NOT_FOUND', ARGV[2] } end
local path = ARGV[2] ~= '' and ARGV[2] or source[3]
local node, existing, refused = file_place(path)
if refused then return refused end
local current = redis.call('HGET', V, path)
local current_key, current_id
if current then current_key, current_id = entry_of(current) end
local expect = ARGV[3]
if (expect == 'null' and current) or ((expect == 'sha' or expect == 'key') and not current) then
  return { 'E', 'CONFLICT', path }
end
if expect == 'key' and current_key ~= ARGV[4] then return { 'E', 'CONFLICT', path } end
if expect == 'sha' then
  local sha = file_record(path, current, '', 0).sha
  if sha == '' then sha = current_id and known_sha(current_id, current_key) end
  if not sha or sha == '' then return { 'E', 'NEEDSHA', current_key, redis.call('HGET', F, current_key) } end
  if sha ~= ARGV[4] then return { 'E', 'CONFLICT', path } end
end
if #content > tonumber(ARGV[5]) then return { 'E', 'TOO_LARGE', path } end
local delta = #content
if current then delta = delta - tonumber(redis.call('HGET', S, path) or '0') end
total_bytes() -- made first when missing, so that add_bytes adds to the right total
local breach = quota_breach(ARGV[8], ARGV[9], delta, not current)
if breach then return breach end

local h = history_args(10, op)
h.on = true -- a restore is always recorded
h.at = change_time(now)
local seq = next_seq()
local key = int(seq)
local r
if current then
  r = file_record(path, current, key, h.at)
  release(current_key)
else
  -- A deleted file comes back as itself where it was deleted, when it has not come back since.
  local newest = redis.call('ZRANGE', file_key(source[2]), -1, -1)
  local latest = #newest > 0 and version_at(newest[1])
  local id
  if latest and latest[5] == OP_DELETED and latest[3] == path then id = source[2] else id = new_file_id(path, key) end
  r = { id = id, created = h.at }
end
r.key, r.sha, r.vseq = key, source[14] or '', key
put_file(node, existing, path, r, content, not current, h.at, delta)
retain(key)
record(h, seq, r.id, OP_RESTORED, path, false, source[14] or '', false, source[1])
changed(h)
receipt(op, now, key)
local out = { 'ok' }
version_fields(version_at(seq), out, false)
return out
`,
);

/**
 * `redactVersion`. ARGV: sequence number, fence. Returns the version's fields as it now is, nil
 * when it is not kept, or {'E', 'LATE', now}. Redacting again changes nothing.
 */
export const REDACT = script(
  'redact',
  '',
  String.raw`
${CHANGE_PRELUDE}
local rec, member = version_at(tonumber(ARGV[1]))
if not rec then return false end
if not rec[13] then
  local now = now_ms()
  if now > tonumber(ARGV[2]) then return { 'E', 'LATE', now } end
  local key = content_key(rec)
  if rec[3] then redis.call('ZREM', P, rec[3] .. '\0' .. seq16(rec[1])) end
  if rec[4] then redis.call('ZREM', P, rec[4] .. '\0' .. seq16(rec[1])) end
  rec[3], rec[4], rec[14], rec[15], rec[16] = false, false, false, false, false
  rec[13] = now
  redis.call('ZREM', O, member)
  redis.call('ZADD', O, rec[1], cmsgpack.pack(rec))
  if key then release(key) end
end
local out = {}
version_fields(rec, out, false)
return out
`,
);

/**
 * `importVersions`, one batch. ARGV: op (the batch's own, so a resent batch is not refused as a
 * conflict), count, the namespace's registry members, then 16 fields per version, oldest first:
 * seq, file id, path, previous path, operation, time, actor type, actor id, command, operation id,
 * tool use id, restored from (seq), redacted at, SHA-256 (base64), size, content; every field
 * that may be null is '' for null and '=' followed by the value otherwise. Returns {'ok'} or
 * {'E', 'CONFLICT', ''} when the namespace holds a version not older than the first.
 */
export const IMPORT = script(
  'import',
  '',
  String.raw`
${CHANGE_PRELUDE}
local op = ARGV[1]
if redis.call('HGET', R, op) then return { 'ok' } end
local newest = redis.call('ZRANGE', O, -1, -1, 'WITHSCORES')
if #newest > 0 and tonumber(newest[2]) >= tonumber(ARGV[4]) then return { 'E', 'CONFLICT', '' } end
local function given(i)
  local value = ARGV[i]
  if value == '' then return false end
  return string.sub(value, 2)
end
local function number(i)
  local value = given(i)
  return value and tonumber(value)
end
local last_seq, last_at = 0, 0
for n = 0, tonumber(ARGV[2]) - 1 do
  local b = 4 + n * 16
  local seq, operation, at = tonumber(ARGV[b]), tonumber(ARGV[b + 4]), tonumber(ARGV[b + 5])
  local content = given(b + 15)
  local key, size = false, false
  if content then
    redis.call('HSET', F, int(seq), content)
    if operation == OP_RENAMED then key = int(seq) end
  else
    size = number(b + 14) or false
  end
  local rec = { seq, ARGV[b + 1], given(b + 2), given(b + 3), operation, at, given(b + 6), given(b + 7),
    tonumber(ARGV[b + 8]), ARGV[b + 9], given(b + 10), number(b + 11) or false, number(b + 12) or false,
    given(b + 13), key, size }
  redis.call('ZADD', O, seq, cmsgpack.pack(rec))
  if rec[3] then redis.call('ZADD', P, 0, rec[3] .. '\0' .. seq16(seq)) end
  if rec[4] then redis.call('ZADD', P, 0, rec[4] .. '\0' .. seq16(seq)) end
  redis.call('ZADD', file_key(rec[2]), seq, int(seq))
  last_seq = seq
  if at > last_at then last_at = at end
end
local counters = redis.call('HMGET', T, 'seq', 'vt')
if last_seq > (tonumber(counters[1]) or 0) then redis.call('HSET', T, 'seq', last_seq) end
if last_at > (tonumber(counters[2]) or 0) then redis.call('HSET', T, 'vt', last_at) end
receipt(op, now_ms(), 'ok')
settle_registration(ARGV[3])
return { 'ok' }
`,
);
