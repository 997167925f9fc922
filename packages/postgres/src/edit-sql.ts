// `str_replace` and `insert` on the server (layout 2): `edit_v2` applies an edit where the bytes are,
// in one function call, with exactly the rules of the kit's `applyEdit` (SPEC 4.3, 4.4).
//
// It works on the UTF-8 bytes (bytea), which also hold U+0000 (text cannot). For well-formed text a
// byte match is a character match is a UTF-16 match: UTF-8 is self-synchronising (no character's
// bytes begin inside another's) and the engine refuses lone surrogates, so the three agree on every
// occurrence, overlapping ones included, and line numbers count 0x0A bytes either way.
//
// Counting must stay linear whatever the model sends (a 1 MiB run of "a" searched for 999 "a" has a
// million overlapping occurrences; a naive search for "a"*999 + "b" in it compares 10^9 bytes):
// - `find_v2` is PostgreSQL's own bytea `position` (a first-byte test, then memcmp), over windows
//   that double, so a search from an offset never copies the rest of the file. Its work is the sum,
//   over the positions it passes, of how far the needle matches there. That sum is at most about
//   64 bytes a position when the needle is short, and O(n log m) when no prefix of the needle longer
//   than 64 bytes is periodic (positions where L > 64 bytes match are then more than L/2 apart:
//   two closer ones would give that prefix a period below L/2).
// - A needle with a long periodic prefix (`-` * 80, "a" * 999) is "wild": `kmp_v2` (Knuth-Morris-
//   Pratt, one step per byte, O(n + m)) counts it, jumping between occurrences of its first 64
//   bytes, and counting a run of occurrences (a stretch with the needle's period) at once.
// - Past the first 100 occurrences only the count is needed: `bulk_count_v2` counts a short needle
//   in a few native passes (a greedy split, then the overlapping occurrences each greedy one hides,
//   read from the needle's periods), so a million occurrences of "a" cost no loop of a million.
// - Lines of the first 100 occurrences come from counting 0x0A in the bytes between them, in one
//   native pass (`encode(..., 'escape')` keeps 0x0A as it is and turns NUL into text).
//
// The differential test (test/edit.test.ts) runs this against applyEdit on random and adversarial
// inputs: multi-byte text, CRLF, astral characters, NUL, overlapping runs.

/** The needle length up to which a plain search is always cheap (about 64 bytes of work a byte). */
const SHORT = 64;

/** The functions of the server-side edit, for `s` (the quoted schema) and a body quoter. */
export function editFunctions(s: string, body: (text: string) => string): string[] {
  return [
    // 0x0A bytes in p_h.
    `CREATE OR REPLACE FUNCTION ${s}.newlines_v2(p_h bytea) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS ${body(`
  SELECT octet_length(e) - octet_length(replace(e, E'\\n', '')) FROM (SELECT encode(p_h, 'escape') COLLATE "C" AS e) AS escaped
`)}`,
    // The offset of the first occurrence of p_n at or after p_from (0-based), or -1.
    `CREATE OR REPLACE FUNCTION ${s}.find_v2(p_h bytea, p_n bytea, p_from integer) RETURNS integer
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS ${body(`
DECLARE
  v_m integer := length(p_n);
  v_len integer := length(p_h);
  v_at integer := p_from;
  v_window bigint := greatest(2 * v_m, 256);
  v_end integer;
  v_pos integer;
BEGIN
  IF v_at = 0 THEN RETURN position(p_n IN p_h) - 1; END IF;
  LOOP
    IF v_at + v_m > v_len THEN RETURN -1; END IF;
    v_end := least(v_len::bigint, v_at + v_window);
    v_pos := position(p_n IN substring(p_h FROM v_at + 1 FOR v_end - v_at));
    IF v_pos > 0 THEN RETURN v_at + v_pos - 1; END IF;
    IF v_end = v_len THEN RETURN -1; END IF;
    v_at := v_end - v_m + 1;
    v_window := v_window * 2;
  END LOOP;
END
`)}`,
    // The end of the stretch from p_at on where p_h repeats itself with period p_period: the first
    // j >= p_at with j = length(p_h) or byte j <> byte j - p_period. Native compares of doubling
    // blocks, then halving inside the block that differs: O(stretch) bytes, O(log) calls.
    `CREATE OR REPLACE FUNCTION ${s}.run_end_v2(p_h bytea, p_at integer, p_period integer) RETURNS integer
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS ${body(`
DECLARE
  v_len integer := length(p_h);
  v_at integer := p_at;
  v_block bigint := 64;
  v_n integer;
BEGIN
  LOOP
    v_n := least(v_block, (v_len - v_at)::bigint);
    IF v_n <= 0 THEN RETURN v_len; END IF;
    IF substring(p_h FROM v_at + 1 FOR v_n) = substring(p_h FROM v_at - p_period + 1 FOR v_n) THEN
      v_at := v_at + v_n;
      v_block := v_block * 2;
    ELSE
      WHILE v_n > 1 LOOP
        IF substring(p_h FROM v_at + 1 FOR v_n / 2) = substring(p_h FROM v_at - p_period + 1 FOR v_n / 2) THEN
          v_at := v_at + v_n / 2;
          v_n := v_n - v_n / 2;
        ELSE
          v_n := v_n / 2;
        END IF;
      END LOOP;
      RETURN v_at;
    END IF;
  END LOOP;
END
`)}`,
    // The KMP failure function of p_n: f[l] is the longest proper border of its first l bytes.
    `CREATE OR REPLACE FUNCTION ${s}.borders_v2(p_n bytea) RETURNS integer[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS ${body(`
DECLARE
  v_m integer := length(p_n);
  v_f integer[] := array_fill(0, ARRAY[greatest(v_m, 1)]);
  v_b integer[] := ARRAY(SELECT get_byte(p_n, i) FROM generate_series(0, v_m - 1) AS i);
  v_k integer := 0;
BEGIN
  FOR i IN 2..v_m LOOP
    WHILE v_k > 0 AND v_b[i] <> v_b[v_k + 1] LOOP v_k := v_f[v_k]; END LOOP;
    IF v_b[i] = v_b[v_k + 1] THEN v_k := v_k + 1; END IF;
    v_f[i] := v_k;
  END LOOP;
  RETURN v_f;
END
`)}`,
    // Knuth-Morris-Pratt from p_from, with p_f = borders_v2(p_n): every occurrence, overlapping ones
    // included, and the offsets of the first p_keep. Matches are extended natively (doubling block
    // compares), and where no match is under way it jumps to the next occurrence of the needle's first
    // 64 bytes. Three shortcuts keep a periodic text from costing a step per byte:
    // - after an occurrence, a run of them (the text keeping the needle's period) is counted at once;
    // - when the text goes on with the period of the part matched, where the needle breaks it, no
    //   occurrence starts before that stretch ends (less a period), so the search resumes there;
    // - otherwise every border k - j*d of the part matched (d its period) expects the same next byte:
    //   they are skipped together.
    `CREATE OR REPLACE FUNCTION ${s}.kmp_v2(p_h bytea, p_n bytea, p_f integer[], p_from integer, p_keep integer,
  OUT o_count bigint, OUT o_offsets integer[])
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS ${body(`
DECLARE
  v_m integer := length(p_n);
  v_len integer := length(p_h);
  v_b integer[] := ARRAY(SELECT get_byte(p_n, i) FROM generate_series(0, v_m - 1) AS i);
  v_anchor bytea := substring(p_n FROM 1 FOR ${SHORT});
  v_q integer := length(substring(p_n FROM 1 FOR ${SHORT}));
  v_period integer := v_m - p_f[v_m];
  v_i integer := p_from;
  v_k integer := 0;
  v_byte integer;
  v_d integer;
  v_n integer;
  v_block bigint;
  v_end integer;
  v_pos integer;
  v_more integer;
BEGIN
  o_count := 0;
  o_offsets := '{}';
  LOOP
    -- Invariant: bytes [v_i - v_k, v_i) of the text are the needle's first v_k bytes, and no
    -- occurrence starts before v_i - v_k that was not counted.
    IF v_k = 0 THEN
      v_block := greatest(2 * v_q, 256);
      LOOP
        IF v_i + v_m > v_len THEN RETURN; END IF;
        v_end := least(v_len::bigint, v_i + v_block);
        v_pos := position(v_anchor IN substring(p_h FROM v_i + 1 FOR v_end - v_i));
        EXIT WHEN v_pos > 0;
        IF v_end = v_len THEN RETURN; END IF;
        v_i := v_end - v_q + 1;
        v_block := v_block * 2;
      END LOOP;
      v_i := v_i + v_pos - 1 + v_q;
      v_k := v_q;
    END IF;
    v_block := 64;
    LOOP
      v_n := least(v_block, (v_m - v_k)::bigint, (v_len - v_i)::bigint);
      EXIT WHEN v_n <= 0;
      IF substring(p_h FROM v_i + 1 FOR v_n) = substring(p_n FROM v_k + 1 FOR v_n) THEN
        v_i := v_i + v_n;
        v_k := v_k + v_n;
        v_block := v_block * 2;
      ELSE
        WHILE v_n > 1 LOOP
          IF substring(p_h FROM v_i + 1 FOR v_n / 2) = substring(p_n FROM v_k + 1 FOR v_n / 2) THEN
            v_i := v_i + v_n / 2;
            v_k := v_k + v_n / 2;
            v_n := v_n - v_n / 2;
          ELSE
            v_n := v_n / 2;
          END IF;
        END LOOP;
        EXIT;
      END IF;
    END LOOP;
    IF v_k = v_m THEN
      v_more := 0;
      IF v_i + v_period <= v_len
        AND substring(p_h FROM v_i + 1 FOR v_period) = substring(p_h FROM v_i - v_period + 1 FOR v_period) THEN
        v_more := (${s}.run_end_v2(p_h, v_i, v_period) - v_i) / v_period;
      END IF;
      FOR t IN 0..v_more LOOP
        EXIT WHEN o_count + t >= p_keep;
        o_offsets := o_offsets || (v_i - v_m + t * v_period);
      END LOOP;
      o_count := o_count + v_more + 1;
      v_i := v_i + v_more * v_period;
      v_k := p_f[v_m];
      CONTINUE;
    END IF;
    EXIT WHEN v_i >= v_len;
    -- Byte v_i of the text is not the needle's byte v_k.
    v_byte := get_byte(p_h, v_i);
    LOOP
      v_d := v_k - p_f[v_k];
      IF v_byte = v_b[v_k - v_d + 1] THEN
        v_end := ${s}.run_end_v2(p_h, v_i, v_d);
        v_i := least(v_i - v_k + v_d * ((v_end - v_i + v_d - 1) / v_d), v_end - v_d + 1);
        v_k := 0;
        EXIT;
      END IF;
      IF v_k >= 2 * v_d THEN
        v_k := p_f[v_d + (v_k - v_d) % v_d];
      ELSE
        v_k := p_f[v_k];
      END IF;
      IF v_k = 0 THEN
        IF v_byte = v_b[1] THEN v_k := 1; END IF;
        v_i := v_i + 1;
        EXIT;
      END IF;
      IF v_byte = v_b[v_k + 1] THEN
        v_k := v_k + 1;
        v_i := v_i + 1;
        EXIT;
      END IF;
    END LOOP;
  END LOOP;
END
`)}`,
    // Every occurrence of a short p_n in p_h, overlapping ones included, in a few native passes, or
    // NULL when they cannot be counted so. The greedy, non-overlapping occurrences are marked with a
    // character found in neither (replace); any other occurrence starts d bytes after a greedy one, d
    // a period of p_n, and is one whose last d bytes follow that greedy one: a mark followed by them.
    // Text with NUL is searched in its escape form (NUL and bytes above 0x7F become a backslash and
    // three octal digits, a backslash two), where every match is aligned with the bytes when the
    // needle's first byte is ASCII other than a backslash or an octal digit.
    `CREATE OR REPLACE FUNCTION ${s}.bulk_count_v2(p_h bytea, p_n bytea) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS ${body(`
DECLARE
  v_m integer := length(p_n);
  v_first integer := get_byte(p_n, 0);
  v_text boolean := position('\\x00'::bytea IN p_h) = 0 AND position('\\x00'::bytea IN p_n) = 0;
  v_h text;
  v_n text;
  v_mark text;
  v_marked text;
  v_tail text;
  v_count bigint;
BEGIN
  IF v_text THEN
    v_h := convert_from(p_h, 'UTF8');
    v_n := convert_from(p_n, 'UTF8');
    SELECT c INTO v_mark FROM unnest(ARRAY[U&'\\FFFF', U&'\\FFFE', U&'\\E000', U&'\\E001', U&'\\F8FF']) AS c
      WHERE strpos(v_h COLLATE "C", c) = 0 LIMIT 1;
    IF v_mark IS NULL THEN RETURN NULL; END IF;
  ELSIF v_first BETWEEN 1 AND 127 AND v_first <> 92 AND v_first NOT BETWEEN 48 AND 55 THEN
    v_h := encode(p_h, 'escape');
    v_n := encode(p_n, 'escape');
    v_mark := U&'\\0100';
  ELSE
    RETURN NULL;
  END IF;
  v_marked := replace(v_h COLLATE "C", v_n, v_n || v_mark);
  v_count := (octet_length(v_marked) - octet_length(v_h)) / octet_length(v_mark);
  FOR d IN 1..v_m - 1 LOOP
    IF substring(p_n FROM d + 1) = substring(p_n FROM 1 FOR v_m - d) THEN
      v_tail := v_mark || CASE WHEN v_text THEN convert_from(substring(p_n FROM v_m - d + 1), 'UTF8')
        ELSE encode(substring(p_n FROM v_m - d + 1), 'escape') END;
      v_count := v_count + (octet_length(v_marked) - octet_length(replace(v_marked COLLATE "C", v_tail, ''))) / octet_length(v_tail);
    END IF;
  END LOOP;
  RETURN v_count;
END
`)}`,
    // How often p_n occurs in p_h (overlapping ones count), and the offsets of the first p_keep.
    `CREATE OR REPLACE FUNCTION ${s}.occurrences_v2(p_h bytea, p_n bytea, p_keep integer,
  OUT o_count bigint, OUT o_offsets integer[])
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS ${body(`
DECLARE
  v_m integer := length(p_n);
  v_len integer := length(p_h);
  v_f integer[];
  v_period integer;
  v_pos integer;
  v_more integer;
  v_total bigint;
BEGIN
  o_count := 0;
  o_offsets := '{}';
  IF v_m > v_len THEN RETURN; END IF;
  -- A long needle in a large file: a plain search is cheap only without a long periodic prefix.
  IF v_m > ${SHORT} AND v_len::bigint * v_m > 33554432 THEN
    v_f := ${s}.borders_v2(p_n);
    FOR l IN ${SHORT + 1}..v_m LOOP
      IF 2 * v_f[l] >= l THEN
        SELECT * INTO o_count, o_offsets FROM ${s}.kmp_v2(p_h, p_n, v_f, 0, p_keep);
        RETURN;
      END IF;
    END LOOP;
  END IF;
  v_pos := ${s}.find_v2(p_h, p_n, 0);
  WHILE v_pos >= 0 LOOP
    IF o_count >= p_keep AND v_m <= ${SHORT} THEN
      -- Only the count is left to find: natively where it can be, else by KMP from here.
      v_total := ${s}.bulk_count_v2(p_h, p_n);
      IF v_total IS NOT NULL THEN
        o_count := v_total;
        RETURN;
      END IF;
      v_f := coalesce(v_f, ${s}.borders_v2(p_n));
      o_count := o_count + (SELECT k.o_count FROM ${s}.kmp_v2(p_h, p_n, v_f, v_pos, 0) AS k);
      RETURN;
    END IF;
    o_count := o_count + 1;
    IF o_count <= p_keep THEN o_offsets := o_offsets || v_pos; END IF;
    IF o_count = 8 AND v_f IS NULL THEN v_f := ${s}.borders_v2(p_n); END IF;
    IF v_f IS NOT NULL THEN
      -- Many occurrences: count a run of them (spaced by the needle's period) at once.
      v_period := v_m - v_f[v_m];
      v_more := (${s}.run_end_v2(p_h, v_pos + v_m, v_period) - v_pos - v_m) / v_period;
      FOR t IN 1..v_more LOOP
        EXIT WHEN o_count + t > p_keep;
        o_offsets := o_offsets || (v_pos + t * v_period);
      END LOOP;
      o_count := o_count + v_more;
      v_pos := v_pos + v_more * v_period;
    END IF;
    v_pos := ${s}.find_v2(p_h, p_n, v_pos + 1);
  END LOOP;
END
`)}`,
    // The 1-based line of each offset (ascending) in p_h.
    `CREATE OR REPLACE FUNCTION ${s}.lines_of_v2(p_h bytea, p_offsets integer[]) RETURNS integer[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS ${body(`
DECLARE
  v_line bigint := 1;
  v_prev integer := 0;
  v_lines integer[] := '{}';
  v_offset integer;
BEGIN
  FOREACH v_offset IN ARRAY p_offsets LOOP
    v_line := v_line + ${s}.newlines_v2(substring(p_h FROM v_prev + 1 FOR v_offset - v_prev));
    v_lines := v_lines || v_line::integer;
    v_prev := v_offset;
  END LOOP;
  RETURN v_lines;
END
`)}`,
    // The offset of the p_count-th 0x0A at or after p_from, or -1 when there are fewer.
    `CREATE OR REPLACE FUNCTION ${s}.newline_after_v2(p_h bytea, p_from integer, p_count integer) RETURNS integer
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS ${body(`
DECLARE
  v_at integer := p_from - 1;
BEGIN
  FOR i IN 1..p_count LOOP
    v_at := ${s}.find_v2(p_h, '\\x0a'::bytea, v_at + 1);
    IF v_at < 0 THEN RETURN -1; END IF;
  END LOOP;
  RETURN v_at;
END
`)}`,
    // The offset of the p_count-th 0x0A before p_before, counting back (1: the last one), or -1.
    // Looks at doubling windows, split at their newlines.
    `CREATE OR REPLACE FUNCTION ${s}.newline_before_v2(p_h bytea, p_before integer, p_count integer) RETURNS integer
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS ${body(`
DECLARE
  v_window bigint := 256;
  v_start integer;
  v_lines text[];
  v_at integer;
BEGIN
  LOOP
    v_start := greatest(0, p_before - v_window);
    v_lines := string_to_array(encode(substring(p_h FROM v_start + 1 FOR p_before - v_start), 'escape'), E'\\n');
    IF cardinality(v_lines) - 1 >= p_count THEN
      v_at := p_before;
      FOR i IN 0..p_count - 1 LOOP
        v_at := v_at - octet_length(decode(v_lines[cardinality(v_lines) - i], 'escape')) - 1;
      END LOOP;
      RETURN v_at;
    END IF;
    IF v_start = 0 THEN RETURN -1; END IF;
    v_window := v_window * 2;
  END LOOP;
END
`)}`,
    // The str_replace snippet of p_c around its line p_k (0-based), which starts at offset p_start:
    // lines max(0, k-2) to min(count, k+3), exclusive, as bytes, and the first one's 1-based number.
    `CREATE OR REPLACE FUNCTION ${s}.snippet_v2(p_c bytea, p_k integer, p_start integer,
  OUT o_first integer, OUT o_snippet bytea)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS ${body(`
DECLARE
  v_from integer := greatest(0, p_k - 2);
  v_begin integer := p_start;
  v_end integer;
BEGIN
  IF p_k > v_from THEN
    v_begin := ${s}.newline_before_v2(p_c, p_start - 1, p_k - v_from) + 1;
  END IF;
  v_end := ${s}.newline_after_v2(p_c, p_start, 3);
  IF v_end < 0 THEN v_end := length(p_c); END IF;
  o_first := v_from + 1;
  o_snippet := substring(p_c FROM v_begin + 1 FOR v_end - v_begin);
END
`)}`,
    // The offset where line p_k (0-based) of p_h starts (after its p_k-th 0x0A), or NULL when p_h has
    // fewer lines.
    `CREATE OR REPLACE FUNCTION ${s}.line_start_v2(p_h bytea, p_k integer) RETURNS integer
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS ${body(`
DECLARE
  v_lines text[];
BEGIN
  IF p_k = 0 THEN RETURN 0; END IF;
  IF p_k <= 8 THEN RETURN nullif(${s}.newline_after_v2(p_h, 0, p_k), -1) + 1; END IF;
  v_lines := string_to_array(encode(p_h, 'escape') COLLATE "C", E'\\n');
  IF cardinality(v_lines) <= p_k THEN RETURN NULL; END IF;
  RETURN octet_length(decode(array_to_string(v_lines[1:p_k], E'\\n'), 'escape')) + 1;
END
`)}`,
  ];
}

/** Pieces of PL/pgSQL every change function of layout 2 shares. */
export interface ChangeParts {
  /** Refuses a session in repeatable read (its snapshot would hide what the namespace lock orders). */
  readonly isolation: string;
  /** Bounds the function's lock waits by the call's deadline (p_wait_ms), for this transaction. */
  readonly lockWait: string;
  /** Records v_outcome under p_op, and now and then removes records older than 10 minutes. */
  readonly record: string;
  /** Adds v_delta bytes and v_files files to the namespace's totals (p_ns). */
  readonly addTotals: string;
}

/**
 * `edit_v2`: an edit as data, one call: the outcome (`edited`, `missing`, `no-match`, `multiple`,
 * `invalid-line`, `too-large`, `quota`), its numbers as text, and the snippet's bytes. The checks run
 * in the order of DriverEditOutcome; nothing is written unless the outcome is `edited`.
 */
export function editFunction(s: string, body: (text: string) => string, parts: ChangeParts): string {
  return `CREATE OR REPLACE FUNCTION ${s}.edit_v2(p_ns text, p_path text, p_kind text, p_old bytea, p_new bytea,
  p_line integer, p_max_file_bytes bigint, p_max_bytes bigint, p_op text, p_wait_ms integer,
  OUT o_outcome text, OUT o_info text, OUT o_snippet bytea)
LANGUAGE plpgsql VOLATILE AS ${body(`
DECLARE
  v_outcome text;
  v_h bytea;
  v_c bytea;
  v_count bigint;
  v_offsets integer[];
  v_at integer;
  v_k integer;
  v_start integer;
  v_size bigint;
  v_delta bigint;
  v_files bigint := 0;
  v_bytes bigint;
BEGIN
  ${parts.isolation}
  SELECT outcome INTO v_outcome FROM ${s}.ops WHERE op = p_op;
  IF FOUND THEN
    -- A replay: the edit was made. Its snippet is read again from the file as it is now.
    o_outcome := 'edited';
    o_info := '0';
    IF v_outcome <> 'e' THEN
      v_k := substr(v_outcome, 2)::integer;
      SELECT content INTO v_h FROM ${s}.files WHERE ns = p_ns AND path = p_path;
      v_start := ${s}.line_start_v2(coalesce(v_h, '\\x'::bytea), v_k);
      IF v_start IS NULL THEN
        o_info := (greatest(0, v_k - 2) + 1)::text;
        o_snippet := '\\x'::bytea;
      ELSE
        SELECT f.o_first::text, f.o_snippet INTO o_info, o_snippet FROM ${s}.snippet_v2(v_h, v_k, v_start) AS f;
      END IF;
    END IF;
    RETURN;
  END IF;
  ${parts.lockWait}
  SELECT content INTO v_h FROM ${s}.files WHERE ns = p_ns AND path = p_path FOR UPDATE;
  IF NOT FOUND THEN
    o_outcome := 'missing';
    o_info := CASE WHEN EXISTS (SELECT 1 FROM ${s}.files WHERE ns = p_ns AND path >= p_path || '/' AND path < p_path || '0')
      THEN 'directory' ELSE '' END;
    RETURN;
  END IF;
  -- One plain copy: the searches below would otherwise decompress a large value at every call.
  v_h := v_h || '\\x'::bytea;
  IF p_kind = 'str_replace' THEN
    SELECT o.o_count, o.o_offsets INTO v_count, v_offsets FROM ${s}.occurrences_v2(v_h, p_old, 100) AS o;
    IF v_count = 0 THEN
      o_outcome := 'no-match';
      RETURN;
    END IF;
    IF v_count > 1 THEN
      o_outcome := 'multiple';
      o_info := v_count || ':' || array_to_string(${s}.lines_of_v2(v_h, v_offsets), ',');
      RETURN;
    END IF;
    v_at := v_offsets[1];
    v_size := length(v_h)::bigint - length(p_old) + length(p_new);
  ELSE
    v_k := p_line;
    IF v_k < 0 THEN
      o_outcome := 'invalid-line';
      o_info := (${s}.newlines_v2(v_h) + 1)::text;
      RETURN;
    ELSIF v_k = 0 THEN
      v_at := -1;
    ELSE
      v_at := ${s}.line_start_v2(v_h, v_k) - 1;
      IF v_at IS NULL THEN
        v_count := ${s}.newlines_v2(v_h);
        IF v_k <> v_count + 1 THEN
          o_outcome := 'invalid-line';
          o_info := (v_count + 1)::text;
          RETURN;
        END IF;
        v_at := length(v_h);
      END IF;
    END IF;
    v_size := length(v_h)::bigint + length(p_new) + 1;
  END IF;
  IF v_size > p_max_file_bytes THEN
    o_outcome := 'too-large';
    o_info := v_size::text;
    RETURN;
  END IF;
  v_delta := v_size - length(v_h);
  IF p_max_bytes IS NOT NULL AND v_delta > 0 THEN
    SELECT bytes INTO v_bytes FROM ${s}.totals WHERE ns = p_ns FOR UPDATE;
    IF coalesce(v_bytes, 0) + v_delta > p_max_bytes THEN
      o_outcome := 'quota';
      o_info := 'b' || (coalesce(v_bytes, 0) + v_delta) || '/' || p_max_bytes;
      RETURN;
    END IF;
  END IF;
  IF p_kind = 'str_replace' THEN
    v_c := substring(v_h FROM 1 FOR v_at) || p_new || substring(v_h FROM v_at + length(p_old) + 1);
    v_k := ${s}.newlines_v2(substring(v_h FROM 1 FOR v_at));
    v_start := ${s}.newline_before_v2(v_h, v_at, 1) + 1;
    v_outcome := 'e' || v_k;
  ELSIF v_at < 0 THEN
    v_c := p_new || '\\x0a'::bytea || v_h;
    v_outcome := 'e';
  ELSE
    v_c := substring(v_h FROM 1 FOR v_at) || '\\x0a'::bytea || p_new || substring(v_h FROM v_at + 1);
    v_outcome := 'e';
  END IF;
  UPDATE ${s}.files SET content = v_c, version = replace(gen_random_uuid()::text, '-', '')
    WHERE ns = p_ns AND path = p_path;
  ${parts.record}
  ${parts.addTotals}
  o_outcome := 'edited';
  IF p_kind = 'str_replace' THEN
    SELECT f.o_first::text, f.o_snippet INTO o_info, o_snippet FROM ${s}.snippet_v2(v_c, v_k, v_start) AS f;
  ELSE
    o_info := '0';
  END IF;
END
`)}`;
}
