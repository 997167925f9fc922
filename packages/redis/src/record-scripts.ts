// The scripts of identity (capabilities.records, updateById): a file's record read by path or by
// id, a page of records in the byte order of their paths, an update by id, and the hashes the
// driver computed filled in. Each is one script on the namespace's keys, one round trip.
//
// A record lives in the file's entry in V (change-prelude.ts: entry), written by every change in
// its own script. Two indexes beside it, kept by the same changes, in the namespace's hash tag:
//   {namespace}:k   sorted set, every score 0: the path of every file, in its own form (not the
//                   stored one of layout.ts), so that ZRANGEBYLEX gives the byte order of UTF-8
//   {namespace}:d   hash: file id -> stored path
// A namespace written before records were kept gets both, and its entries' records, at the first
// call that needs them (ensure_records; `rk` in the totals marks them made).
import { CHANGE_PRELUDE } from './change-prelude.js';
import { script } from './scripts.js';

/**
 * `readRecord` and `locate`. ARGV: 'p' (by path) or 'i' (by id), the stored path or the id, '1'
 * for the content, '1' to record a touched read. Returns nil, or {stored path, entry, size,
 * content | nil}: the content when asked for, or when the entry's hash is not computed yet.
 */
export const RECORD = script(
  'record',
  '',
  String.raw`
${CHANGE_PRELUDE}
local now = now_ms()
local path
if ARGV[1] == 'i' then
  ensure_records(now)
  path = redis.call('HGET', D, ARGV[2])
  if not path then return false end
else
  path = ARGV[2]
end
local value = redis.call('HGET', V, path)
if not value then return false end
local r = file_record(path, value, now, now)
if ARGV[1] == 'i' and r.id ~= ARGV[2] then return false end
if r.up then
  redis.call('HSET', V, path, entry(r))
  index_file(path, r.id)
end
local content = false
if ARGV[3] == '1' or r.sha == '' then content = redis.call('HGET', F, r.key) end
if ARGV[3] == '1' and ARGV[4] == '1' then redis.call('ZADD', E, 'GT', now, path) end
return { path, entry(r), redis.call('HGET', S, path) or 0, content }
`,
);

/** How many paths `listRecords` reads from the index at a time. */
const LIST_BATCH = 64;

/**
 * `listRecords`. ARGV: prefix (under and '/', or '' for everything), low and high bounds of
 * ZRANGEBYLEX on K (the driver works them out from under and after), depth, limit, after ('' for
 * none). Returns {next key | nil, item...}, each item 4 fields: 'm', marker key (its path and
 * '/'), nil, nil; or 'f', path, entry, size, content | nil (the content only when the entry's hash
 * is not computed yet). Files deeper than depth are skipped a folder at a time: at most one read
 * of the index per item, LIST_BATCH paths each.
 */
export const LIST_RECORDS = script(
  'list-records',
  '',
  String.raw`
${CHANGE_PRELUDE}
local prefix, low, high = ARGV[1], ARGV[2], ARGV[3]
local depth, limit, after = tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6]
local now = now_ms()
ensure_records(now)
local kinds, keys, n, more, skip = {}, {}, 0, false, nil
while true do
  local batch = redis.call('ZRANGEBYLEX', K, low, high, 'LIMIT', 0, ${LIST_BATCH})
  for i = 1, #batch do
    local m = batch[i]
    if not (skip and string.sub(m, 1, #skip) == skip) then
      skip = nil
      if n == limit then
        more = true
        break
      end
      -- The folder depth levels beneath the prefix that holds m, when m lies deeper.
      local cut = nil
      if depth > 0 then
        cut = #prefix
        for _ = 1, depth do
          cut = string.find(m, '/', cut + 1, true)
          if not cut then break end
        end
      end
      if cut then
        local marker = string.sub(m, 1, cut)
        skip = marker
        -- Its key comes after the cursor unless the cursor lies in that folder.
        if after == '' or string.sub(after, 1, #marker) ~= marker then
          n = n + 1
          kinds[n], keys[n] = 'm', marker
        end
      else
        n = n + 1
        kinds[n], keys[n] = 'f', m
      end
    end
  end
  if more or #batch < ${LIST_BATCH} then break end
  if skip then low = '[' .. string.sub(skip, 1, -2) .. '0' else low = '(' .. batch[#batch] end
end
local paths = {}
for i = 1, n do
  if kinds[i] == 'f' then paths[#paths + 1] = remap(keys[i], false) end
end
local values, sizes = {}, {}
for i = 1, #paths, 500 do
  local last = math.min(i + 499, #paths)
  local v = redis.call('HMGET', V, unpack(paths, i, last))
  local s = redis.call('HMGET', S, unpack(paths, i, last))
  for j = 1, #v do
    values[i + j - 1] = v[j]
    sizes[i + j - 1] = s[j]
  end
end
local out = { more and keys[n] or false }
local j = 0
for i = 1, n do
  if kinds[i] == 'm' then
    out[#out + 1] = 'm'
    out[#out + 1] = keys[i]
    out[#out + 1] = false
    out[#out + 1] = false
    out[#out + 1] = false
  else
    j = j + 1
    local value = values[j]
    if value then
      local r = file_record(paths[j], value, now, now)
      out[#out + 1] = 'f'
      out[#out + 1] = keys[i]
      out[#out + 1] = entry(r)
      out[#out + 1] = sizes[j] or 0
      out[#out + 1] = r.sha == '' and redis.call('HGET', F, r.key) or false
    end
  end
end
return out
`,
);

/**
 * `updateById`. ARGV: 1 file id, 2 '1' with new content, 3 content, 4 its SHA-256 (base64), 5 new
 * stored path ('' keeps it), 6 expected SHA-256 (base64, '' none), 7 a content key whose hash the
 * driver computed and 8 that hash (for a file whose hash is not computed yet), 9 max file bytes,
 * 10 op, 11 fence, 12 max bytes, 13 max files, 14 new content key (without history), then the
 * history block (15 on). Returns {'ok', 1 changed | 0, stored path, entry, size, content | nil},
 * or {'E', code, ...} (NEEDSHA: content key and content of a file whose hash is not computed yet,
 * nothing written).
 */
export const UPDATE = script(
  'update',
  '',
  String.raw`
${CHANGE_PRELUDE}
local id, op = ARGV[1], ARGV[10]
local now = now_ms()
local done = redis.call('HGET', R, op)
if not done and now > tonumber(ARGV[11]) then return { 'E', 'LATE', now } end
if not done then ensure_records(now) end
local from = redis.call('HGET', D, id)
local value = from and redis.call('HGET', V, from)
if not value then return { 'E', 'NOT_FOUND', '' } end
local r = file_record(from, value, now, now)
if r.id ~= id then return { 'E', 'NOT_FOUND', '' } end
local old = redis.call('HGET', F, r.key)
if done then return { 'ok', tonumber(done), from, entry(r), #old, r.sha == '' and old or false } end

local to = ARGV[5] ~= '' and ARGV[5] or from
local content = ARGV[2] == '1' and ARGV[3] or old
local new_content = content ~= old
if to == from and not new_content then
  return { 'ok', 0, from, entry(r), #old, r.sha == '' and old or false }
end
if ARGV[6] ~= '' then
  local sha = r.sha
  if sha == '' and r.key == ARGV[7] then sha = ARGV[8] end
  if sha == '' then return { 'E', 'NEEDSHA', r.key, old } end
  if sha ~= ARGV[6] then return { 'E', 'CONFLICT', from } end
end
local source, target = walk(from), walk(to)
local existing = 0
if to ~= from then
  local deepest, above = settle(target)
  if above then return { 'E', 'PATH_CONFLICT', above } end
  if redis.call('HEXISTS', V, to) == 1 or redis.call('ZSCORE', I, '\1' .. target.mem[target.k]) then
    return { 'E', 'ALREADY_EXISTS', to }
  end
  existing = deepest
end
if #content > tonumber(ARGV[9]) then return { 'E', 'TOO_LARGE', to } end
local delta = #content - #old
local totals = totals_of(true)
local breach = quota_breach(ARGV[12], ARGV[13], delta, false)
if breach then
  breach[#breach + 1] = to
  return breach
end

local h = history_args(15, op)
h.at = change_time(now, totals.last)
local seq = h.on and next_seq()
if to ~= from then
  -- Out of from, into to, as a move of one file does.
  redis.call('HDEL', V, from)
  redis.call('HDEL', S, from)
  redis.call('ZREM', I, source.mem[source.k])
  redis.call('ZREM', E, from)
  redis.call('ZREM', K, remap(from, true))
  redis.call('ZADD', I, 0, target.mem[target.k])
  add_parents(target, existing)
  move_size(source, target, #old)
  prune(source)
  index_file(to, id)
end
r.vseq = seq and int(seq) or ''
local version_key = false
if new_content then
  release(r.key)
  r.key, r.sha = seq and int(seq) or ARGV[14], ARGV[4]
  if seq then retain(r.key) end
  put_file(target, 0, to, r, content, false, h.at, delta)
else
  r.changed = h.at
  redis.call('HSET', V, to, entry(r))
  redis.call('HSET', S, to, #old)
  redis.call('ZADD', E, h.at, to)
  if seq then
    -- A renamed version shares the file's content.
    if r.sha == '' then r.sha = known_sha(id, r.key) or '' end
    retain(r.key)
    version_key = r.key
  end
end
if seq then
  if to ~= from then
    record(h, seq, id, OP_RENAMED, to, from, r.sha, version_key, false)
  else
    record(h, seq, id, OP_MODIFIED, to, false, r.sha, false, false)
  end
end
changed_file(h, totals.registered)
receipt(op, now, '1')
return { 'ok', 1, to, entry(r), #content, false }
`,
);

/**
 * Fills in hashes the driver computed. ARGV: stored path, content key, SHA-256 (base64), and so
 * on: each is set only when the file there still has that content and its hash is not set yet.
 */
export const FILL_HASHES = script(
  'fill-hashes',
  '',
  String.raw`
for i = 1, #ARGV, 3 do
  local value = redis.call('HGET', V, ARGV[i])
  if value then
    local f = {}
    for part in string.gmatch(value .. '\t', '([^\t]*)\t') do f[#f + 1] = part end
    if #f >= 6 and f[1] == ARGV[i + 1] and f[3] == '' then
      f[3] = ARGV[i + 2]
      redis.call('HSET', V, ARGV[i], table.concat(f, '\t'))
    end
  end
end
return 1
`,
);
