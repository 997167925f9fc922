// `str_replace` and `insert` on the server (layouts 2 and 3): `edit_v3` applies an edit where the bytes are,
// in one function call, with exactly the rules of the kit's `applyEdit` (SPEC 4.3, 4.4), finding
// old_str with the functions of match-sql.ts. Line numbers count 0x0A bytes; `encode(..., 'escape')`
// keeps 0x0A as it is and turns NUL into text, so newlines are counted in one native pass.
import { insertVersion, NEW_FILE_ID, NOW_MS } from './history-sql.js';

/** The line functions of the server-side edit, for `s` (the quoted schema) and a body quoter. */
export function lineFunctions(s: string, body: (text: string) => string): string[] {
  return [
    // 0x0A bytes in p_h.
    `CREATE OR REPLACE FUNCTION ${s}.newlines_v2(p_h bytea) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS ${body(`
  SELECT octet_length(e) - octet_length(replace(e, E'\\n', '')) FROM (SELECT encode(p_h, 'escape') COLLATE "C" AS e) AS escaped
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
  /**
   * Adds v_delta bytes and v_files files to the namespace's totals (p_ns), takes v_n version ids
   * (none without p_record) into v_seq, less v_pruned pruned, and the change's time into v_at.
   */
  readonly advance: string;
}

/**
 * `edit_v3`: an edit as data, one call: the outcome (`edited`, `missing`, `no-match`, `multiple`,
 * `invalid-line`, `too-large`, `quota`), its numbers as text, and the snippet's bytes. The checks run
 * in the order of DriverEditOutcome; nothing is written unless the outcome is `edited` (but with
 * p_touch, the file's read time). p_record (history on): the version's record. `edit_v2` is the
 * same without history, for a release of layout 2.
 */
export function editFunction(s: string, body: (text: string) => string, parts: ChangeParts): string[] {
  return [
    `CREATE OR REPLACE FUNCTION ${s}.edit_v4(p_ns text, p_path text, p_kind text, p_old bytea, p_new bytea,
  p_line integer, p_max_file_bytes bigint, p_max_bytes bigint, p_op text, p_wait_ms integer, p_record jsonb,
  p_touch boolean, OUT o_outcome text, OUT o_info text, OUT o_snippet bytea)
LANGUAGE plpgsql VOLATILE AS ${body(`
DECLARE
  v_outcome text;
  v_h bytea;
  v_c bytea;
  v_count bigint;
  v_offsets integer[];
  v_pos integer;
  v_k integer;
  v_start integer;
  v_size bigint;
  v_delta bigint;
  v_files bigint := 0;
  v_bytes bigint;
  v_file text;
  v_seq bigint;
  v_at bigint;
  v_n bigint := 1;
  v_pruned bigint := 0;
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
  SELECT content, file_id INTO v_h, v_file FROM ${s}.files WHERE ns = p_ns AND path = p_path FOR UPDATE;
  IF NOT FOUND THEN
    o_outcome := 'missing';
    o_info := CASE WHEN EXISTS (SELECT 1 FROM ${s}.files WHERE ns = p_ns AND path >= p_path || '/' AND path < p_path || '0')
      THEN 'directory' ELSE '' END;
    RETURN;
  END IF;
  IF p_touch THEN
    UPDATE ${s}.files SET touched_at = ${NOW_MS} WHERE ns = p_ns AND path = p_path;
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
    v_pos := v_offsets[1];
    v_size := length(v_h)::bigint - length(p_old) + length(p_new);
  ELSE
    v_k := p_line;
    IF v_k < 0 THEN
      o_outcome := 'invalid-line';
      o_info := (${s}.newlines_v2(v_h) + 1)::text;
      RETURN;
    ELSIF v_k = 0 THEN
      v_pos := -1;
    ELSE
      v_pos := ${s}.line_start_v2(v_h, v_k) - 1;
      IF v_pos IS NULL THEN
        v_count := ${s}.newlines_v2(v_h);
        IF v_k <> v_count + 1 THEN
          o_outcome := 'invalid-line';
          o_info := (v_count + 1)::text;
          RETURN;
        END IF;
        v_pos := length(v_h);
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
    v_c := substring(v_h FROM 1 FOR v_pos) || p_new || substring(v_h FROM v_pos + length(p_old) + 1);
    v_k := ${s}.newlines_v2(substring(v_h FROM 1 FOR v_pos));
    v_start := ${s}.newline_before_v2(v_h, v_pos, 1) + 1;
    v_outcome := 'e' || v_k;
  ELSIF v_pos < 0 THEN
    v_c := p_new || '\\x0a'::bytea || v_h;
    v_outcome := 'e';
  ELSE
    v_c := substring(v_h FROM 1 FOR v_pos) || '\\x0a'::bytea || p_new || substring(v_h FROM v_pos + 1);
    v_outcome := 'e';
  END IF;
  v_file := coalesce(v_file, ${NEW_FILE_ID});
  ${parts.record}
  IF p_record IS NOT NULL THEN v_pruned := ${s}.prune_v3(p_ns, v_file, p_record); END IF;
  ${parts.advance}
  -- The row is locked since the first look: written after the totals row, with the change's time
  -- and version id.
  UPDATE ${s}.files SET content = v_c, version = replace(gen_random_uuid()::text, '-', ''), file_id = v_file,
      changed_at = v_at, sha256 = pg_catalog.sha256(v_c), created_at = coalesce(created_at, changed_at),
      version_id = CASE WHEN p_record IS NULL THEN NULL ELSE v_seq END
    WHERE ns = p_ns AND path = p_path;
  IF p_record IS NOT NULL THEN
    ${insertVersion(s, { path: 'p_path', previous: 'NULL', operation: `'modified'`, content: 'v_c', restored: 'NULL' })}
  END IF;
  o_outcome := 'edited';
  IF p_kind = 'str_replace' THEN
    SELECT f.o_first::text, f.o_snippet INTO o_info, o_snippet FROM ${s}.snippet_v2(v_c, v_k, v_start) AS f;
  ELSE
    o_info := '0';
  END IF;
END
`)}`,
    `CREATE OR REPLACE FUNCTION ${s}.edit_v3(p_ns text, p_path text, p_kind text, p_old bytea, p_new bytea,
  p_line integer, p_max_file_bytes bigint, p_max_bytes bigint, p_op text, p_wait_ms integer, p_record jsonb,
  p_touch boolean, OUT o_outcome text, OUT o_info text, OUT o_snippet bytea)
LANGUAGE sql VOLATILE AS ${body(`
  SELECT * FROM ${s}.edit_v4(p_ns, p_path, p_kind, p_old, p_new, p_line, p_max_file_bytes, p_max_bytes, p_op,
    p_wait_ms, p_record, p_touch)
`)}`,
    `CREATE OR REPLACE FUNCTION ${s}.edit_v2(p_ns text, p_path text, p_kind text, p_old bytea, p_new bytea,
  p_line integer, p_max_file_bytes bigint, p_max_bytes bigint, p_op text, p_wait_ms integer,
  OUT o_outcome text, OUT o_info text, OUT o_snippet bytea)
LANGUAGE sql VOLATILE AS ${body(`
  SELECT * FROM ${s}.edit_v4(p_ns, p_path, p_kind, p_old, p_new, p_line, p_max_file_bytes, p_max_bytes, p_op,
    p_wait_ms, NULL, false)
`)}`,
  ];
}
