// Folder moves and deletes in bounded steps. A move or delete of a folder with more than
// FOLDER_STEP_ENTRIES files and folders beneath it does not run as one script (one script over
// 20,000 files holds the single-threaded Redis for most of a second, every other namespace
// waiting): its change script checks everything, as before, and writes a journal into the
// namespace's totals (`mv` in KEYS[7]) instead of moving anything; then STEP, run again and again,
// moves or deletes batches of entries for about STEP_BUDGET_US of server time at a time and, once
// none is left beneath the folder, finishes (the folder's own entries, its parents, sizes, pruning,
// the receipt) and removes the journal. Other namespaces run between the steps.
//
// All or nothing: while the journal is there, every script of the namespace (reads included, see
// MOVING_GUARD in scripts.ts) refuses with MOVING_REPLY (change-prelude.ts) before it reads
// anything, and the driver that gets that refusal runs the steps itself until the journal is gone,
// then sends its call again (calls.ts). So no reader sees a half-moved folder and no writer changes
// one; a process killed half-way leaves the journal, and the next call on the namespace, from any
// process, finishes the change (the journal holds everything it needs: paths, operation id, time,
// history block). Each step is one atomic script that starts from what is left beneath the folder,
// so any number of processes may run steps at once. Erasing the namespace (DROP) does not wait: the
// journal goes with the totals.
import { CHANGE_PRELUDE } from './change-prelude.js';
import { script } from './scripts.js';

/**
 * Redis time (µs) after which a step stops taking more batches of STEP_BATCH entries: a step
 * holds the server for about this long (one batch more at most), whatever the machine's load.
 * Measured on a loaded 2-core machine (bench redis): 1 ms gave another namespace's view a p99 of
 * 31 ms where 2 ms gave 51 ms, the rename taking as long.
 */
export const STEP_BUDGET_US = 1_000;

/** Entries a step handles between two looks at the clock (about 40 µs each on a quiet server). */
const STEP_BATCH = 16;

/**
 * One step of the namespace's stepped move or delete: batches until its time is used up. No ARGV.
 * Returns 'more' while entries are left, 'done' once the change is finished (or when no journal is
 * there: another step finished it).
 */
export const STEP = script(
  'folder-step',
  '',
  String.raw`
${CHANGE_PRELUDE}
local packed = redis.call('HGET', T, 'mv')
if not packed then return 'done' end
local j = cmsgpack.unpack(packed)
local h = j.h
local cut = #j.from + 1

-- Moves the files and folders of members (each beneath j.from) to their place beneath j.to, and
-- records a version of each file moved, as the move script does for a small folder.
local function move_members(members, old, values, sizes)
  for i, m in ipairs(members) do
    local was = old[i]
    local now_at = j.to .. string.sub(was, cut)
    local moved = j.to .. string.sub(m, cut)
    redis.call('ZREM', I, m)
    redis.call('ZADD', I, 0, moved)
    if sizes[i] then
      redis.call('HSET', S, now_at, sizes[i])
      redis.call('HDEL', S, was)
    end
    if values[i] then
      local r = file_record(was, values[i], h.at, h.at)
      redis.call('HDEL', V, was)
      redis.call('ZREM', E, was)
      redis.call('ZADD', E, h.at, now_at)
      redis.call('ZREM', K, remap(was, true))
      if h.on then
        if r.sha == '' then r.sha = known_sha(r.id, r.key) or '' end
        local seq = next_seq()
        retain(r.key)
        record(h, seq, r.id, OP_RENAMED, now_at, was, r.sha, r.key, false)
        r.vseq = int(seq)
      end
      r.changed = h.at
      redis.call('HSET', V, now_at, entry(r))
      index_file(now_at, r.id)
    elseif redis.call('ZREM', I, '\1' .. m) == 1 then
      redis.call('ZADD', I, 0, '\1' .. moved)
    end
  end
end

-- Deletes the files and folders of members (each beneath j.from), recording a deletion of each
-- file, as the remove script does for a small folder.
local function remove_members(members, old, values, sizes)
  for i, m in ipairs(members) do
    local was = old[i]
    redis.call('ZREM', I, m)
    redis.call('HDEL', S, was)
    if values[i] then
      local r = file_record(was, values[i], h.at, h.at)
      unindex_file(was, r.id)
      release(r.key)
      redis.call('HDEL', V, was)
      redis.call('ZREM', E, was)
      add_bytes(-(tonumber(sizes[i]) or 0))
      if h.on then record(h, next_seq(), r.id, OP_DELETED, was, false, false, false, false) end
    else
      redis.call('ZREM', I, '\1' .. m)
    end
  end
end

-- The next entries beneath the folder: those left are always the first of its two ranges.
local function next_members()
  local members = {}
  for _, range in ipairs(subtree('', j.from)) do
    local left = ${STEP_BATCH} - #members
    if left > 0 then
      for _, m in ipairs(redis.call('ZRANGEBYLEX', I, range[1], range[2], 'LIMIT', 0, left)) do
        members[#members + 1] = m
      end
    end
  end
  return members
end

local function clock_us()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end

-- Batches until the step's time is used up.
local started = clock_us()
local members = next_members()
while #members > 0 do
  local old = {}
  for i, m in ipairs(members) do old[i] = path_of(m) end
  local values = redis.call('HMGET', V, unpack(old))
  local sizes = redis.call('HMGET', S, unpack(old))
  if j.kind == 'move' then move_members(members, old, values, sizes)
  else remove_members(members, old, values, sizes) end
  if clock_us() - started >= ${STEP_BUDGET_US} then return 'more' end
  members = next_members()
end

-- Nothing left beneath the folder: the folder itself, its parents, sizes and receipt.
local source = walk(j.from)
local sm = source.mem[source.k]
redis.call('ZREM', I, sm, '\1' .. sm)
if j.kind == 'move' then
  local target = walk(j.to)
  local tm = target.mem[target.k]
  redis.call('ZADD', I, 0, tm, 0, '\1' .. tm)
  local size = redis.call('HGET', S, j.from)
  if size then
    redis.call('HSET', S, j.to, size)
    redis.call('HDEL', S, j.from)
  end
  local existing = settle(target)
  add_parents(target, existing)
  move_size(source, target, j.weight)
  prune(source)
  changed_file(h, j.registered)
  receipt(j.op, now_ms(), 'ok')
else
  redis.call('HDEL', S, j.from)
  add_size(source, -j.weight)
  prune(source)
  changed(h)
  receipt(j.op, now_ms(), '1')
end
redis.call('HDEL', T, 'mv')
return 'done'
`,
  '',
  false,
);
