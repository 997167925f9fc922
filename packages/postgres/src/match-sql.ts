// Finding old_str in a file on the server (layout 2), for edit_v2 (edit-sql.ts): how often it
// occurs, overlapping occurrences included, and where the first 100 are, in bytes (bytea, which also
// holds U+0000). For well-formed text a byte match is a character match is a UTF-16 match: UTF-8 is
// self-synchronising (no character's bytes begin inside another's) and the engine refuses lone
// surrogates, so the three agree on every occurrence.
//
// Counting must stay linear whatever the model sends (a 1 MiB run of "a" searched for 999 "a" has a
// million overlapping occurrences; a naive search for "a"*998 + "b" in it compares 10^9 bytes):
// - `find_v2` is PostgreSQL's own bytea `position` (a first-byte test, then memcmp), over windows
//   that double, so a search from an offset never copies the rest of the file. Its work is the sum,
//   over the positions it passes, of how far the needle matches there. That sum is at most about
//   64 bytes a position when the needle is short, and O(n log m) when no prefix of the needle longer
//   than 64 bytes is periodic (positions where L > 64 bytes match are then more than L/2 apart:
//   two closer ones would give that prefix a period below L/2).
// - A needle with a long periodic prefix (`-` * 80, "a" * 999) in a large file is "wild": `kmp_v2`
//   (Knuth-Morris-Pratt with native block compares and shortcuts for periodic text) counts it.
// - Past the first 100 occurrences only the count is needed: `bulk_count_v2` counts a short needle
//   in a few native passes, so a million occurrences of "a" cost no loop of a million.
//
// The differential tests (test/edit.test.ts) run these against a plain count, and edit_v2 against
// applyEdit, on random and adversarial inputs: multi-byte text, CRLF, astral characters, NUL,
// overlapping runs.

/** The needle length up to which a plain search is always cheap (about 64 bytes of work a byte). */
const SHORT = 64;

/** The matching functions, for `s` (the quoted schema) and a body quoter. */
export function matchFunctions(s: string, body: (text: string) => string): string[] {
  return [
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
  ];
}
