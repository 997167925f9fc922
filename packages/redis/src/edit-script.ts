// The edit script: `str_replace` and `insert` applied where the bytes are, in one atomic step, with
// exactly the rules of the kit's `applyEdit` (SPEC 4.3 and 4.4).
//
// Matching runs on UTF-8 bytes. For a valid UTF-8 needle in valid UTF-8 content (what Redis holds,
// and what the driver sends: it keeps needles with lone surrogates in JavaScript), byte matches are
// exactly the character matches of JavaScript: UTF-8 is self-synchronising, so a match never starts
// or ends inside a character, and occurrences, overlapping ones included, correspond one to one.
// Line numbers count '\n' bytes, which are '\n' characters. Sizes are bytes, as `utf8Length` counts.
//
// Time: a script runs alone, so it must never take long, whatever the model sends. Every step that
// touches many bytes is a C function of Lua (find with plain=true, sub and ==, gsub, reverse); the
// Lua work is bounded:
// - occurrences are found by a 32-byte head (plain find, so at most 32 compares per byte) and
//   checked in doubling chunks (so a failed check costs about what matched);
// - a run of the text that repeats with a short period is crossed at once (Knuth-Morris-Pratt's
//   insight: where two occurrences of the head, or of the needle, overlap, the needle repeats, and
//   the text's repetition tells where every occurrence inside the run is): a 1 MiB run of "a"
//   searched for 999 "a" is a few dozen compares of large blocks;
// - past MAX_STEPS head hits and checks, or MAX_COMPARED bytes compared, the script gives up before
//   writing anything and answers SLOW; the driver then applies that edit in JavaScript (applyEdit,
//   two round trips). Only text built to defeat the head (tens of thousands of near matches) gets
//   there.
import { CHANGE_PRELUDE } from './change-prelude.js';
import { script } from './scripts.js';

/** The occurrence finder, on its own so that tests can time it. Defines `occurrences(hay, needle)`. */
export const MATCHER = `
local find, sub, floor, min, max = string.find, string.sub, math.floor, math.min, math.max
local KEEP = 100
local MAX_STEPS = 10000
local MAX_COMPARED = 2097152
local HEAD = 32

-- How far from a the bytes of s repeat every d bytes (s[i] == s[i - d] for a + d <= i < a + result),
-- knowing that they do for the first known bytes: doubling block compares, halving at the end.
local function periodic_extent(s, a, d, known)
  local len, reach, step = #s, a + known, 64
  while reach <= len do
    local size = min(step, len - reach + 1)
    if sub(s, reach, reach + size - 1) == sub(s, reach - d, reach - d + size - 1) then
      reach = reach + size
      if step < 65536 then step = step * 2 end
    elseif size == 1 then
      break
    else
      step = floor(size / 2)
    end
  end
  return reach - a
end

-- Every occurrence of needle in hay, overlapping ones included: their count and the 1-based byte
-- offsets of the first KEEP; nil when that would take more than the budget.
local function occurrences(hay, needle)
  local m = #needle
  local q = min(m, HEAD)
  local head = sub(needle, 1, q)
  local count, offsets, steps, compared = 0, {}, 0, 0
  local needle_extent = {}
  -- needle[from..m] == hay[at + from - 1 ..], compared in doubling chunks.
  local function matches(at, from)
    local size, i = 64, from
    while i <= m do
      local j = min(m, i + size - 1)
      steps, compared = steps + 1, compared + j - i + 1
      if sub(hay, at + i - 1, at + j - 1) ~= sub(needle, i, j) then return false end
      i, size = j + 1, size * 2
    end
    return true
  end
  local function found(at)
    count = count + 1
    if #offsets < KEEP then offsets[#offsets + 1] = at end
  end
  -- hit: the last head hit (unless a run was just crossed); last: the last occurrence likewise.
  local hit, last
  local init, limit = 1, #hay - m + 1
  while init <= limit do
    local at = find(hay, head, init, true)
    if not at or at > limit then break end
    steps = steps + 1
    if steps > MAX_STEPS or compared > MAX_COMPARED then return nil end
    if hit and at - hit < q then
      -- Two overlapping head hits e apart: the head repeats every e bytes, and so does the text from
      -- x up to p1 (exclusive), and the needle for its first ln bytes. Inside the run, hits repeat
      -- every e bytes. If the needle repeats to its end, it occurs at x + i*e wherever it fits
      -- before p1. If not, an occurrence at z must not meet the run's end p1 inside the needle's
      -- repeating part, nor the needle's break (at z + ln) inside the run: only z = p1 - ln is
      -- left below p1 - e + 1. Past that, the search goes on as usual.
      local x, e = hit, at - hit
      local p1 = x + periodic_extent(hay, x, e, e + q)
      local ln = needle_extent[e]
      if not ln then
        ln = min(m, periodic_extent(needle, 1, e, q))
        needle_extent[e] = ln
      end
      if ln == m then
        local j = floor((p1 - m - x) / e)
        for i = 1, min(j, KEEP - #offsets) do offsets[#offsets + 1] = x + i * e end
        if j > 0 then count = count + j end
      else
        local z = p1 - ln
        if z > x and z <= limit and matches(z, 1) then found(z) end
      end
      init, hit, last = p1 - e + 1, nil, nil
    elseif not matches(at, q + 1) then
      hit, init = at, at + 1
    elseif last and at - last <= m then
      -- Two occurrences d apart (d <= m): while the text repeats every d bytes from the first one,
      -- the needle occurs every d bytes and nowhere in between; one that ends past the run starts
      -- after its end minus min(d, m).
      local d = at - last
      local extent = periodic_extent(hay, last, d, d + m)
      local j = floor((extent - m) / d)
      for i = 1, min(j, KEEP - #offsets) do offsets[#offsets + 1] = last + i * d end
      count = count + j
      init, hit, last = last + extent - min(d, m) + 1, nil, nil
    else
      found(at)
      hit, last, init = at, at, at + 1
    end
  end
  return count, offsets
end
`;

/**
 * `edit`. ARGV: path, kind ('s' str_replace | 'i' insert | 'x' none: the edit is applied in
 * JavaScript), old string | line, new string | text, max file bytes, op, fence, new version
 * (without history), max bytes, max files, touch ('1' records the read for expiry), then the
 * history block (12 on). Returns {'ok', first line, snippet} (for an insert: {'ok', 0, ''}), or
 * {'E', code, ...}: MISSING (kind: 'directory' or ''), NO_MATCH, MULTIPLE (count, lines...),
 * INVALID_LINE (lines), TOO_LARGE (bytes), QUOTA (kind, n, max), LATE (server time), SLOW
 * (version, content: the file, for an edit in JavaScript; nothing was written). A replay answers
 * the recorded outcome whatever the kind, so an edit applied in JavaScript is replay-safe too.
 * The version it records has no hash yet (change-prelude.ts).
 */
export const EDIT = script(
  'edit',
  '',
  String.raw`
${CHANGE_PRELUDE}
${MATCHER}
local SNIPPET_RECEIPT = 4096

local function newlines(s)
  local _, n = string.gsub(s, '\n', '')
  return n
end

-- The 1-based line of each offset (ascending), counting newlines between them.
local function lines_of(content, offsets)
  local lines, line, from = {}, 1, 1
  for i = 1, #offsets do
    local at = offsets[i]
    if at > from then line = line + newlines(sub(content, from, at - 1)) end
    lines[i] = line
    from = at
  end
  return lines
end

-- The position of the n-th newline (n >= 1, and there are that many): chunks counted whole first.
local function nth_newline(content, n)
  local pos = 1
  while true do
    local c = newlines(sub(content, pos, pos + 1023))
    if c >= n then break end
    n, pos = n - c, pos + 1024
  end
  local p = pos - 1
  for _ = 1, n do p = find(content, '\n', p + 1, true) end
  return p
end

-- The snippet of a replacement at byte at: lines max(0, k-2) to k+2 of the new content (k being
-- the 0-based line of at), from the line starts before at (the same in both contents) to the
-- third newline from at in the new one. Returns the 1-based first line, the snippet, its start.
local function snippet_of(content, updated, at)
  local k = newlines(sub(content, 1, at - 1))
  local start = 1
  if k >= 3 then
    -- After the third newline before at: read backwards in a growing window.
    local window = 256
    while true do
      local lo = max(1, at - window)
      local back = string.reverse(sub(content, lo, at - 1))
      local p = 0
      for _ = 1, 3 do
        p = find(back, '\n', p + 1, true)
        if not p then break end
      end
      if p then
        start = at - p + 1
        break
      end
      window = window * 4
    end
  end
  local stop = at - 1
  for _ = 1, 3 do
    local p = find(updated, '\n', stop + 1, true)
    if not p then
      stop = #updated + 1
      break
    end
    stop = p
  end
  return max(0, k - 2) + 1, sub(updated, start, stop - 1), start
end

-- What a replay answers: the recorded outcome ('#' first line, newline, snippet; or '@' first
-- line, version, start and length of a large snippet, read again while that version is current).
local function replayed(done)
  local mark = sub(done, 1, 1)
  if mark == '#' then
    local nl = find(done, '\n', 1, true)
    return { 'ok', tonumber(sub(done, 2, nl - 1)), sub(done, nl + 1) }
  end
  if mark == '@' then
    local first, version, start, length = string.match(done, '^@(%d+) (%S+) (%d+) (%d+)$')
    local content = redis.call('HGET', F, version)
    if content then return { 'ok', tonumber(first), sub(content, start, start + length - 1) } end
    return { 'ok', tonumber(first) }
  end
  return { 'ok', 0, '' }
end

local path, op = ARGV[1], ARGV[6]
local done = redis.call('HGET', R, op)
if done then return replayed(done) end
local now = now_ms()
if now > tonumber(ARGV[7]) then return { 'E', 'LATE', now } end

local value = redis.call('HGET', V, path)
if not value then return { 'E', 'MISSING', is_dir(path) and 'directory' or '' } end
-- A read for expiry (refreshOnRead) even when the edit is refused: the model looked at the file.
if ARGV[11] == '1' then redis.call('ZADD', E, 'GT', now, path) end
local current = entry_of(value)
local content = redis.call('HGET', F, current)
if ARGV[2] == 'x' then return { 'E', 'SLOW', current, content } end
local updated, first, snippet, start
if ARGV[2] == 's' then
  local old, new = ARGV[3], ARGV[4]
  local count, offsets = occurrences(content, old)
  if count == nil then return { 'E', 'SLOW', current, content } end
  if count == 0 then return { 'E', 'NO_MATCH' } end
  if count > 1 then
    local reply = { 'E', 'MULTIPLE', count }
    for _, line in ipairs(lines_of(content, offsets)) do reply[#reply + 1] = line end
    return reply
  end
  local at = offsets[1]
  updated = sub(content, 1, at - 1) .. new .. sub(content, at + #old)
  first, snippet, start = snippet_of(content, updated, at)
else
  local line, text = tonumber(ARGV[3]), ARGV[4]
  local count = newlines(content) + 1
  if line < 0 or line > count then return { 'E', 'INVALID_LINE', count } end
  if line == 0 then
    updated = text .. '\n' .. content
  elseif line == count then
    updated = content .. '\n' .. text
  else
    local p = nth_newline(content, line)
    updated = sub(content, 1, p) .. text .. '\n' .. sub(content, p + 1)
  end
  first, snippet = 0, ''
end
if #updated > tonumber(ARGV[5]) then return { 'E', 'TOO_LARGE', #updated } end
local delta = #updated - #content
local totals = totals_of(true)
local breach = quota_breach(ARGV[9], ARGV[10], delta, false)
if breach then return breach end

local h = history_args(12, op)
h.at = change_time(now, totals.last)
local seq = h.on and next_seq()
local version = seq and int(seq) or ARGV[8]
local r = file_record(path, value, version, h.at)
release(current)
-- Lua has no SHA-256: the hash is computed by the driver when the record is next read or listed.
r.key, r.sha, r.vseq = version, '', seq and version or ''
put_file(walk(path), 0, path, r, updated, false, h.at, delta)
if seq then
  retain(version)
  record(h, seq, r.id, OP_MODIFIED, path, false, '', false, false)
end
changed_file(h, totals.registered)
if #snippet <= SNIPPET_RECEIPT then
  receipt(op, now, '#' .. first .. '\n' .. snippet)
else
  receipt(op, now, '@' .. first .. ' ' .. version .. ' ' .. start .. ' ' .. #snippet)
end
return { 'ok', first, snippet }
`,
);
