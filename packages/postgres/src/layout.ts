// Layout 2 in a schema: the tables, the change functions (one call per change, so each is one round
// trip and one transaction), and the functions of layout 1 kept as wrappers over them.
//
// Layout 2 adds `totals` (one row per namespace: its files and UTF-8 bytes), kept in the same call
// as each change, so a quota is judged in that call and `usage` reads one row. Every change takes
// its locks in one order (the namespace's advisory lock, then file rows, then the totals row, last,
// so it is held only from the final statement to the commit): no two changes can deadlock.
import { type ChangeParts, editFunction, lineFunctions } from './edit-sql.js';
import { matchFunctions } from './match-sql.js';
import { functionBody, NAMESPACE_LOCK_CLASS } from './sql.js';

/** The pieces of PL/pgSQL the change functions share, for the quoted schema `s`. */
function changeParts(s: string): ChangeParts & { replay: string; lock: string; judge: string } {
  return {
    isolation: `IF pg_catalog.current_setting('transaction_isolation') = 'repeatable read' THEN
    RAISE EXCEPTION 'memdir needs read committed or serializable isolation, not repeatable read'
      USING ERRCODE = 'MD001';
  END IF;`,
    // A change whose op id is on record already happened: a replayed call returns what it returned.
    replay: `SELECT outcome INTO v_outcome FROM ${s}.ops WHERE op = p_op;
  IF FOUND THEN RETURN v_outcome; END IF;`,
    lockWait: `IF p_wait_ms IS NOT NULL THEN
    PERFORM pg_catalog.set_config('lock_timeout', p_wait_ms || 'ms', true);
  END IF;`,
    lock: `PERFORM pg_catalog.pg_advisory_xact_lock(${NAMESPACE_LOCK_CLASS}, pg_catalog.hashtext(p_ns));`,
    record: `INSERT INTO ${s}.ops (op, outcome) VALUES (p_op, v_outcome);
  IF pg_catalog.random() < 0.02 THEN
    DELETE FROM ${s}.ops WHERE op IN (
      SELECT op FROM ${s}.ops WHERE at < pg_catalog.now() - interval '10 minutes'
      ORDER BY at LIMIT 200 FOR UPDATE SKIP LOCKED);
  END IF;`,
    // Judged on the totals as the row lock leaves them: concurrent changes of one namespace take
    // turns here, so together they never pass the quota. A change that adds nothing is never judged.
    judge: `IF (p_max_bytes IS NOT NULL AND v_delta > 0) OR (p_max_files IS NOT NULL AND v_files > 0) THEN
    SELECT bytes, files INTO v_bytes, v_count FROM ${s}.totals WHERE ns = p_ns FOR UPDATE;
    v_bytes := coalesce(v_bytes, 0);
    v_count := coalesce(v_count, 0);
    IF p_max_bytes IS NOT NULL AND v_delta > 0 AND v_bytes + v_delta > p_max_bytes THEN
      RETURN 'qb' || (v_bytes + v_delta) || '/' || p_max_bytes;
    END IF;
    IF p_max_files IS NOT NULL AND v_files > 0 AND v_count + v_files > p_max_files THEN
      RETURN 'qf' || v_count || '/' || p_max_files;
    END IF;
  END IF;`,
    addTotals: `IF v_delta <> 0 OR v_files <> 0 THEN
    UPDATE ${s}.totals SET bytes = bytes + v_delta, files = files + v_files WHERE ns = p_ns;
    IF NOT FOUND THEN
      INSERT INTO ${s}.totals AS t (ns, bytes, files) VALUES (p_ns, v_delta, v_files)
        ON CONFLICT (ns) DO UPDATE SET bytes = t.bytes + excluded.bytes, files = t.files + excluded.files;
    END IF;
  END IF;`,
  };
}

/** The tables of layouts 1 and 2 (created when missing; layout 1's stay as they were). */
export function tables(s: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${s}.files (
  ns text COLLATE "C" NOT NULL,
  path text COLLATE "C" NOT NULL,
  content bytea NOT NULL,
  size integer GENERATED ALWAYS AS (octet_length(content)) STORED,
  version text COLLATE "C" NOT NULL,
  CONSTRAINT files_pkey PRIMARY KEY (ns, path) INCLUDE (size)
)`,
    `COMMENT ON TABLE ${s}.files IS 'memdir: one row per memory file. ns is the namespace chain ('''' for none, ''a/b'' nested), path the memory path without /memories/, content its UTF-8 bytes.'`,
    `CREATE TABLE IF NOT EXISTS ${s}.ops (
  op text COLLATE "C" PRIMARY KEY,
  outcome text NOT NULL,
  at timestamptz NOT NULL DEFAULT pg_catalog.now()
)`,
    `COMMENT ON TABLE ${s}.ops IS 'memdir: the outcome of each recent change by operation id, so a replayed call is not applied twice. Rows older than 10 minutes are removed.'`,
    `CREATE INDEX IF NOT EXISTS ops_at ON ${s}.ops (at)`,
    `CREATE TABLE IF NOT EXISTS ${s}.totals (
  ns text COLLATE "C" PRIMARY KEY,
  bytes bigint NOT NULL,
  files bigint NOT NULL
)`,
    `COMMENT ON TABLE ${s}.totals IS 'memdir (layout 2): the files and UTF-8 bytes of each namespace, kept by every change in the same call.'`,
  ];
}

/** The functions of layout 2, and those of layout 1 as wrappers over them (old releases keep working). */
export function functions(s: string): string[] {
  const parts = changeParts(s);
  const { isolation, replay, lockWait, lock, record, judge, addTotals } = parts;
  const declare = `v_outcome text;
  v_conflict text;
  v_old integer;
  v_delta bigint := 0;
  v_files bigint := 0;
  v_bytes bigint;
  v_count bigint;`;
  const v = functionBody;
  return [
    ...listingFunctions(s),
    ...matchFunctions(s, v),
    ...lineFunctions(s, v),
    editFunction(s, v, parts),
    // Writes a whole file. p_expect: NULL creates or replaces, '' requires that no file is there,
    // anything else is the version the file must have. Returns 'v' || the new version, 'c' when
    // the expectation fails, 'p' || path for a PATH_CONFLICT at path, 'qb' || total || '/' || max
    // or 'qf' || count || '/' || max for a quota. p_more_ops: more op ids recorded with the outcome
    // (the other edits of a batch).
    `CREATE OR REPLACE FUNCTION ${s}.write_v2(p_ns text, p_path text, p_content bytea, p_expect text, p_op text,
  p_ancestors text[], p_max_bytes bigint, p_max_files bigint, p_wait_ms integer, p_more_ops text[])
RETURNS text LANGUAGE plpgsql VOLATILE AS ${v(`
DECLARE
  ${declare}
  v_version text := replace(gen_random_uuid()::text, '-', '');
BEGIN
  ${isolation}
  ${replay}
  ${lockWait}
  -- A file that exists has no file above it and is no directory: replacing it needs only its row
  -- lock, never the namespace lock.
  IF p_expect IS NULL OR p_expect <> '' THEN
    SELECT size INTO v_old FROM ${s}.files
      WHERE ns = p_ns AND path = p_path AND (p_expect IS NULL OR version = p_expect) FOR UPDATE;
  END IF;
  IF v_old IS NULL THEN
    -- A new path: the structural checks of one namespace take turns. Each statement below takes a
    -- new snapshot (VOLATILE, read committed), so it sees what earlier lock holders committed.
    ${lock}
    SELECT path INTO v_conflict FROM ${s}.files WHERE ns = p_ns AND path = ANY (p_ancestors) LIMIT 1;
    IF FOUND THEN RETURN 'p' || v_conflict; END IF;
    IF EXISTS (SELECT 1 FROM ${s}.files WHERE ns = p_ns AND path >= p_path || '/' AND path < p_path || '0') THEN
      RETURN 'p' || p_path;
    END IF;
    IF p_expect IS NULL THEN
      -- Another writer may have created it since the first look.
      SELECT size INTO v_old FROM ${s}.files WHERE ns = p_ns AND path = p_path FOR UPDATE;
    ELSIF p_expect <> '' OR EXISTS (SELECT 1 FROM ${s}.files WHERE ns = p_ns AND path = p_path) THEN
      -- The version expected was not there a moment ago (versions never come back), or a file is
      -- where none was expected.
      RETURN 'c';
    END IF;
  END IF;
  v_delta := octet_length(p_content) - coalesce(v_old, 0);
  IF v_old IS NULL THEN v_files := 1; END IF;
  ${judge}
  IF v_old IS NULL THEN
    INSERT INTO ${s}.files (ns, path, content, version) VALUES (p_ns, p_path, p_content, v_version);
  ELSE
    UPDATE ${s}.files SET content = p_content, version = v_version WHERE ns = p_ns AND path = p_path;
  END IF;
  v_outcome := 'v' || v_version;
  ${record}
  IF cardinality(p_more_ops) > 0 THEN
    INSERT INTO ${s}.ops (op, outcome) SELECT other, v_outcome FROM unnest(p_more_ops) AS other
      ON CONFLICT (op) DO NOTHING;
  END IF;
  ${addTotals}
  RETURN v_outcome;
END
`)}`,
    // Removes a file or a directory with everything beneath it. Returns 't', or 'f' for nothing.
    `CREATE OR REPLACE FUNCTION ${s}.remove_v2(p_ns text, p_path text, p_op text, p_wait_ms integer)
RETURNS text LANGUAGE plpgsql VOLATILE AS ${v(`
DECLARE
  ${declare}
BEGIN
  ${isolation}
  ${replay}
  ${lockWait}
  ${lock}
  WITH gone AS (
    DELETE FROM ${s}.files
    WHERE ns = p_ns AND (path = p_path OR (path >= p_path || '/' AND path < p_path || '0'))
    RETURNING size
  ) SELECT -count(*), -coalesce(sum(size), 0) INTO v_files, v_delta FROM gone;
  IF v_files = 0 THEN RETURN 'f'; END IF;
  v_outcome := 't';
  ${record}
  ${addTotals}
  RETURN v_outcome;
END
`)}`,
    // Moves a file or a directory. Returns 't', 'n' (nothing at p_from), 'p' || path (a file above
    // p_to) or 'e' (something at p_to), checked in that order. The totals do not change.
    `CREATE OR REPLACE FUNCTION ${s}.move_v2(p_ns text, p_from text, p_to text, p_op text, p_ancestors text[],
  p_wait_ms integer)
RETURNS text LANGUAGE plpgsql VOLATILE AS ${v(`
DECLARE
  ${declare}
BEGIN
  ${isolation}
  ${replay}
  ${lockWait}
  ${lock}
  IF NOT EXISTS (SELECT 1 FROM ${s}.files WHERE ns = p_ns AND (path = p_from OR (path >= p_from || '/' AND path < p_from || '0'))) THEN
    RETURN 'n';
  END IF;
  SELECT path INTO v_conflict FROM ${s}.files WHERE ns = p_ns AND path = ANY (p_ancestors) LIMIT 1;
  IF FOUND THEN RETURN 'p' || v_conflict; END IF;
  IF EXISTS (SELECT 1 FROM ${s}.files WHERE ns = p_ns AND (path = p_to OR (path >= p_to || '/' AND path < p_to || '0'))) THEN
    RETURN 'e';
  END IF;
  UPDATE ${s}.files SET path = p_to || substr(path, char_length(p_from) + 1),
                        version = replace(gen_random_uuid()::text, '-', '')
    WHERE ns = p_ns AND (path = p_from OR (path >= p_from || '/' AND path < p_from || '0'));
  v_outcome := 't';
  ${record}
  RETURN v_outcome;
END
`)}`,
    // Layout 1's change functions, as an older release calls them: the same answers, and the
    // totals kept, so a release of each layout can run side by side during a deploy.
    `CREATE OR REPLACE FUNCTION ${s}.write_v1(p_ns text, p_path text, p_content bytea, p_expect text, p_op text, p_ancestors text[])
RETURNS text LANGUAGE sql VOLATILE AS ${v(`
  SELECT ${s}.write_v2(p_ns, p_path, p_content, p_expect, p_op, p_ancestors, NULL, NULL, NULL, '{}')
`)}`,
    `CREATE OR REPLACE FUNCTION ${s}.remove_v1(p_ns text, p_path text, p_op text)
RETURNS text LANGUAGE sql VOLATILE AS ${v(`SELECT ${s}.remove_v2(p_ns, p_path, p_op, NULL)`)}`,
    `CREATE OR REPLACE FUNCTION ${s}.move_v1(p_ns text, p_from text, p_to text, p_op text, p_ancestors text[])
RETURNS text LANGUAGE sql VOLATILE AS ${v(`SELECT ${s}.move_v2(p_ns, p_from, p_to, p_op, p_ancestors, NULL)`)}`,
    `CREATE OR REPLACE FUNCTION ${s}.installed_v1() RETURNS integer LANGUAGE sql IMMUTABLE AS 'SELECT 1'`,
  ];
}

/** `installed_v2`, created last, once the totals are right: layout 2 is complete. */
export function installedMarker(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.installed_v2() RETURNS integer LANGUAGE sql IMMUTABLE AS 'SELECT 2'`;
}

/**
 * The totals computed from the files (an upgrade from layout 1, under locks that keep every change
 * out while it runs).
 */
export function recountTotals(s: string): string[] {
  return [
    `DELETE FROM ${s}.totals`,
    `INSERT INTO ${s}.totals (ns, bytes, files) SELECT ns, sum(size), count(*) FROM ${s}.files GROUP BY ns`,
  ];
}

/** The listing's sort order (unchanged from layout 1). */
function listingFunctions(s: string): string[] {
  return [
    // UTF-16 order as byte order: characters above U+FFFF move down to just after U+D7FF, and
    // U+E000-U+FFFF move up above them (a bijection of U+E000-U+10FFFF). Other names are their
    // own key, found without a per-character walk: only bytes 0xEE-0xF4 start such characters in
    // UTF-8.
    `CREATE OR REPLACE FUNCTION ${s}.utf16_key_v1(name text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS ${functionBody(`
  SELECT string_agg(CASE WHEN c < 57344 THEN chr(c) WHEN c < 65536 THEN chr(c + 1048576) ELSE chr(c - 8192) END,
                    '' ORDER BY i)
  FROM (SELECT i, ascii(substr(name, i, 1)) AS c FROM generate_series(1, char_length(name)) AS i) AS chars
`)}`,
    `CREATE OR REPLACE FUNCTION ${s}.listing_key_v1(name text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS ${functionBody(`
  SELECT CASE
    WHEN octet_length(name) = char_length(name) THEN name
    WHEN position('\\xee'::bytea IN convert_to(name, 'UTF8')) = 0
      AND position('\\xef'::bytea IN convert_to(name, 'UTF8')) = 0
      AND position('\\xf0'::bytea IN convert_to(name, 'UTF8')) = 0
      AND position('\\xf1'::bytea IN convert_to(name, 'UTF8')) = 0
      AND position('\\xf2'::bytea IN convert_to(name, 'UTF8')) = 0
      AND position('\\xf3'::bytea IN convert_to(name, 'UTF8')) = 0
      AND position('\\xf4'::bytea IN convert_to(name, 'UTF8')) = 0 THEN name
    ELSE ${s}.utf16_key_v1(name)
  END
`)}`,
  ];
}
