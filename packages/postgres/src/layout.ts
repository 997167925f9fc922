// Layout 3 in a schema: the tables, the change functions (one call per change, so each is one round
// trip and one transaction), and the functions of layouts 1 and 2 kept as wrappers over them.
//
// Layout 3 adds history and expiry: a versions table (history-sql.ts) written by the change's own
// call, each file's id and change and read times, and the namespace's version counter, version
// count and change time in its totals row.
//
// Layout 2 adds `totals` (one row per namespace: its files and UTF-8 bytes), kept in the same call
// as each change, so a quota is judged in that call and `usage` reads one row. Every change takes
// its locks in one order (the namespace's advisory lock, then file rows, then the totals row, last,
// so it is held only from the final statement to the commit): no two changes can deadlock.

import { adminFunctions } from './admin-sql.js';
import { describeFunction } from './describe-sql.js';
import { type ChangeParts, editFunction, lineFunctions } from './edit-sql.js';
import {
  CHANGE_DECLARE,
  FUNCTIONS_REVISION,
  FUNCTIONS_REVISION_V3,
  fileAbove,
  historyFunctions,
  historyTables,
  insertFolder,
  insertVersion,
  NEW_FILE_ID,
  NOW_MS,
  pruneEach,
} from './history-sql.js';
import { identityFunctions, identityTables, recordText } from './identity-sql.js';
import { matchFunctions } from './match-sql.js';
import { restoreFunctions } from './restore-sql.js';
import { describe, functionBody, NAMESPACE_LOCK_CLASS } from './sql.js';

/** The pieces of PL/pgSQL the change functions share, for the quoted schema `s`. */
export function changeParts(s: string): ChangeParts & { replay: string; lock: string; judge: string } {
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
    // Last: the totals row (bytes, files, version ids, change time), whatever the change.
    advance: `IF p_record IS NULL THEN v_n := 0; END IF;
  SELECT o_seq, o_at INTO v_seq, v_at FROM ${s}.advance_v3(p_ns, v_delta, v_files, v_n, v_n - v_pruned);`,
  };
}

/** The tables of layouts 1 to 3 (created when missing; what an older layout made is extended in place). */
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
    // Layout 3. Columns without a default (or with a constant one) are added without rewriting the
    // table. A file of an older layout gets its id at its next change; its change time is the
    // upgrade's, so no file expires for want of one.
    `ALTER TABLE ${s}.files ADD COLUMN IF NOT EXISTS file_id text COLLATE "C", ADD COLUMN IF NOT EXISTS touched_at bigint`,
    `DO ${functionBody(`BEGIN
  EXECUTE format(${functionBody(`ALTER TABLE ${s}.files ADD COLUMN IF NOT EXISTS changed_at bigint NOT NULL DEFAULT %s`)}, ${NOW_MS});
END`)}`,
    `ALTER TABLE ${s}.totals ADD COLUMN IF NOT EXISTS seq bigint NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS versions bigint NOT NULL DEFAULT 0, ADD COLUMN IF NOT EXISTS last_change_at bigint`,
    // The namespaces below one another in the order of their names (listNamespaces): '/' becomes
    // U+0001, below every character a name may hold, so 'a' and 'a/b' sort before 'a-b'.
    `CREATE INDEX IF NOT EXISTS totals_tree ON ${s}.totals ((translate(ns, '/', E'\\001'))) WHERE files > 0 OR versions > 0`,
    ...historyTables(s),
    ...identityTables(s),
  ];
}

/** The functions of layout 3, and those of layouts 1 and 2 as wrappers over them (old releases keep working). */
export function functions(s: string): string[] {
  const parts = changeParts(s);
  const { isolation, replay, lockWait, lock, record, judge, advance } = parts;
  const declare = CHANGE_DECLARE;
  const v = functionBody;
  // How a change of structure (remove_v3, move_v3) starts: its variables, then its replay check,
  // then the namespace's lock, taken at once.
  const underLock = `DECLARE
  ${declare}
BEGIN
  ${isolation}
  ${replay}
  ${lockWait}
  ${lock}`;
  return [
    ...listingFunctions(s),
    describeFunction(s, v, describe(s, false, false, true)),
    ...matchFunctions(s, v),
    ...lineFunctions(s, v),
    ...historyFunctions(s, v),
    ...editFunction(s, v, parts),
    ...restoreFunctions(s, v, parts),
    ...adminFunctions(s, v, parts),
    ...identityFunctions(s, v, parts),
    // Writes a whole file. p_expect: NULL creates or replaces, '' requires that no file is there,
    // anything else is the version the file must have. Returns 'v' || the new version || a tab ||
    // the file's record (recordText), 'c' when the expectation fails, 'p' || path for a
    // PATH_CONFLICT at path, 'qb' || total || '/' || max or 'qf' || count || '/' || max for a
    // quota. p_more_ops: more op ids recorded with the outcome (the other edits of a batch).
    // p_record (history on): the version's record. p_file_id: the id of a file this creates (else a
    // new one). The file's row is written after the totals row (the file is locked already: its row
    // lock, or the namespace's lock for a new path), so it carries the change's time and version id.
    `CREATE OR REPLACE FUNCTION ${s}.write_v4(p_ns text, p_path text, p_content bytea, p_expect text, p_op text,
  p_ancestors text[], p_max_bytes bigint, p_max_files bigint, p_wait_ms integer, p_more_ops text[],
  p_record jsonb, p_file_id text)
RETURNS text LANGUAGE plpgsql VOLATILE AS ${v(`
DECLARE
  ${declare}
  v_version text := replace(gen_random_uuid()::text, '-', '');
  v_short text;
BEGIN
  ${isolation}
  ${replay}
  ${lockWait}
  -- A file that exists has no file above it and is no directory: replacing it needs only its row
  -- lock, never the namespace lock.
  IF p_expect IS NULL OR p_expect <> '' THEN
    SELECT size, file_id INTO v_old, v_file FROM ${s}.files
      WHERE ns = p_ns AND path = p_path AND (p_expect IS NULL OR version = p_expect) FOR UPDATE;
  END IF;
  IF v_old IS NULL THEN
    -- A new path: the structural checks of one namespace take turns. Each statement below takes a
    -- new snapshot (VOLATILE, read committed), so it sees what earlier lock holders committed.
    ${lock}
    ${fileAbove(s, 'p_ancestors')}
    IF EXISTS (SELECT 1 FROM ${s}.files WHERE ns = p_ns AND path >= p_path || '/' AND path < p_path || '0') THEN
      RETURN 'p' || p_path;
    END IF;
    IF p_expect IS NULL THEN
      -- Another writer may have created it since the first look.
      SELECT size, file_id INTO v_old, v_file FROM ${s}.files WHERE ns = p_ns AND path = p_path FOR UPDATE;
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
    v_file := coalesce(p_file_id, ${NEW_FILE_ID});
  ELSE
    v_file := coalesce(v_file, ${NEW_FILE_ID});
    IF p_record IS NOT NULL THEN v_pruned := ${s}.prune_v3(p_ns, v_file, p_record); END IF;
  END IF;
  -- Recorded now (a replay of the same op waits here, before the totals row); the record follows.
  v_short := 'v' || v_version;
  v_outcome := v_short;
  ${record}
  IF cardinality(p_more_ops) > 0 THEN
    INSERT INTO ${s}.ops (op, outcome) SELECT other, v_outcome FROM unnest(p_more_ops) AS other
      ON CONFLICT (op) DO NOTHING;
  END IF;
  ${advance}
  v_sha := pg_catalog.sha256(p_content);
  IF v_old IS NULL THEN
    v_created := v_at;
    INSERT INTO ${s}.files (ns, path, content, version, file_id, changed_at, sha256, created_at, version_id)
      VALUES (p_ns, p_path, p_content, v_version, v_file, v_at, v_sha, v_at,
        CASE WHEN p_record IS NULL THEN NULL ELSE v_seq END);
  ELSE
    UPDATE ${s}.files SET content = p_content, version = v_version, file_id = v_file, changed_at = v_at,
        sha256 = v_sha, created_at = coalesce(created_at, changed_at),
        version_id = CASE WHEN p_record IS NULL THEN NULL ELSE v_seq END
      WHERE ns = p_ns AND path = p_path RETURNING created_at INTO v_created;
  END IF;
  IF p_record IS NOT NULL THEN
    ${insertVersion(s, { path: 'p_path', previous: 'NULL', operation: `CASE WHEN v_old IS NULL THEN 'created' ELSE 'modified' END`, content: 'p_content', restored: 'NULL' })}
  END IF;
  v_outcome := v_short || E'\\t' || ${recordText({ file: 'v_file', sha: 'v_sha', size: 'octet_length(p_content)', created: 'v_created', changed: 'v_at', version: `CASE WHEN p_record IS NULL THEN NULL ELSE v_seq END`, path: 'p_path' })};
  UPDATE ${s}.ops SET outcome = v_outcome WHERE (op = p_op OR op = ANY (p_more_ops)) AND outcome = v_short;
  RETURN v_outcome;
END
`)}`,
    // Removes a file or a directory with everything beneath it. Returns 't', or 'f' for nothing.
    // With p_expect_file or p_expect_sha (hex), a file must be at p_path with that id and hash:
    // else 'c' (a directory at p_path never matches), nothing removed.
    `CREATE OR REPLACE FUNCTION ${s}.remove_v4(p_ns text, p_path text, p_op text, p_wait_ms integer, p_record jsonb,
  p_expect_file text, p_expect_sha text)
RETURNS text LANGUAGE plpgsql VOLATILE AS ${v(`
${underLock}
  IF p_expect_file IS NOT NULL OR p_expect_sha IS NOT NULL THEN
    SELECT file_id, coalesce(sha256, pg_catalog.sha256(content)) INTO v_file, v_sha FROM ${s}.files
      WHERE ns = p_ns AND path = p_path;
    IF NOT FOUND THEN
      IF EXISTS (SELECT 1 FROM ${s}.files WHERE ns = p_ns AND path >= p_path || '/' AND path < p_path || '0') THEN
        RETURN 'c';
      END IF;
      RETURN 'f';
    END IF;
    IF (p_expect_file IS NOT NULL AND v_file IS DISTINCT FROM p_expect_file)
        OR (p_expect_sha IS NOT NULL AND encode(v_sha, 'hex') <> p_expect_sha) THEN
      RETURN 'c';
    END IF;
  END IF;
  WITH gone AS (
    DELETE FROM ${s}.files
    WHERE ns = p_ns AND (path = p_path OR (path >= p_path || '/' AND path < p_path || '0'))
    RETURNING path, size, coalesce(file_id, ${NEW_FILE_ID}) AS id
  ) SELECT -count(*), -coalesce(sum(size), 0), array_agg(path ORDER BY path), array_agg(id ORDER BY path)
    INTO v_files, v_delta, v_paths, v_ids FROM gone;
  IF v_files = 0 THEN RETURN 'f'; END IF;
  v_n := -v_files;
  v_outcome := 't';
  ${record}
  ${pruneEach(s)}
  ${advance}
  IF p_record IS NOT NULL THEN
    ${insertFolder(s, 'deleted')};
  END IF;
  RETURN v_outcome;
END
`)}`,
    // Moves a file or a directory. Returns 't', 'n' (nothing at p_from), 'p' || path (a file above
    // p_to) or 'e' (something at p_to), checked in that order. The totals do not change.
    `CREATE OR REPLACE FUNCTION ${s}.move_v4(p_ns text, p_from text, p_to text, p_op text, p_ancestors text[],
  p_wait_ms integer, p_record jsonb)
RETURNS text LANGUAGE plpgsql VOLATILE AS ${v(`
${underLock}
  IF NOT EXISTS (SELECT 1 FROM ${s}.files WHERE ns = p_ns AND (path = p_from OR (path >= p_from || '/' AND path < p_from || '0'))) THEN
    RETURN 'n';
  END IF;
  ${fileAbove(s, 'p_ancestors')}
  IF EXISTS (SELECT 1 FROM ${s}.files WHERE ns = p_ns AND (path = p_to OR (path >= p_to || '/' AND path < p_to || '0'))) THEN
    RETURN 'e';
  END IF;
  WITH moved AS (
    UPDATE ${s}.files SET path = p_to || substr(path, char_length(p_from) + 1),
                          version = replace(gen_random_uuid()::text, '-', ''),
                          file_id = coalesce(file_id, ${NEW_FILE_ID}), changed_at = ${NOW_MS},
                          sha256 = coalesce(sha256, pg_catalog.sha256(content)),
                          created_at = coalesce(created_at, changed_at)
      WHERE ns = p_ns AND (path = p_from OR (path >= p_from || '/' AND path < p_from || '0'))
      RETURNING path, file_id
  ) SELECT count(*), array_agg(path ORDER BY path), array_agg(file_id ORDER BY path) INTO v_n, v_paths, v_ids FROM moved;
  v_outcome := 't';
  ${record}
  ${pruneEach(s)}
  ${advance}
  IF p_record IS NOT NULL THEN
    -- The moved rows are locked already: each takes its version's id and time.
    UPDATE ${s}.files f SET version_id = v_seq + u.i - 1, changed_at = v_at
      FROM unnest(v_paths) WITH ORDINALITY AS u(path, i) WHERE f.ns = p_ns AND f.path = u.path;
    INSERT INTO ${s}.versions (ns, seq, file_id, path, previous_path, operation, sha256, size, at, actor_type,
        actor_id, command, op, tool_use_id, content)
      SELECT p_ns, v_seq + u.i - 1, u.id, u.path, p_from || substr(u.path, char_length(p_to) + 1), 'renamed',
        f.sha256, f.size, v_at, p_record->'actor'->>'type', p_record->'actor'->>'id',
        p_record->>'command', p_op, p_record->>'toolUseId', f.content
      FROM unnest(v_paths, v_ids) WITH ORDINALITY AS u(path, id, i)
      -- One primary-key lookup per file moved (a join could pick a scan of the whole table).
      CROSS JOIN LATERAL (
        SELECT content, size, sha256 FROM ${s}.files WHERE ns = p_ns AND path = u.path
      ) AS f;
  END IF;
  RETURN v_outcome;
END
`)}`,
    // Layout 3's change functions, as an older release calls them: the same answers.
    `CREATE OR REPLACE FUNCTION ${s}.write_v3(p_ns text, p_path text, p_content bytea, p_expect text, p_op text,
  p_ancestors text[], p_max_bytes bigint, p_max_files bigint, p_wait_ms integer, p_more_ops text[],
  p_record jsonb, p_file_id text)
RETURNS text LANGUAGE sql VOLATILE AS ${v(`
  SELECT split_part(${s}.write_v4(p_ns, p_path, p_content, p_expect, p_op, p_ancestors, p_max_bytes, p_max_files,
    p_wait_ms, p_more_ops, p_record, p_file_id), E'\\t', 1)
`)}`,
    `CREATE OR REPLACE FUNCTION ${s}.remove_v3(p_ns text, p_path text, p_op text, p_wait_ms integer, p_record jsonb)
RETURNS text LANGUAGE sql VOLATILE AS ${v(`SELECT ${s}.remove_v4(p_ns, p_path, p_op, p_wait_ms, p_record, NULL, NULL)`)}`,
    `CREATE OR REPLACE FUNCTION ${s}.move_v3(p_ns text, p_from text, p_to text, p_op text, p_ancestors text[],
  p_wait_ms integer, p_record jsonb)
RETURNS text LANGUAGE sql VOLATILE AS ${v(`SELECT ${s}.move_v4(p_ns, p_from, p_to, p_op, p_ancestors, p_wait_ms, p_record)`)}`,
    // Layout 2's change functions, as an older release calls them: the same answers, no history.
    `CREATE OR REPLACE FUNCTION ${s}.write_v2(p_ns text, p_path text, p_content bytea, p_expect text, p_op text,
  p_ancestors text[], p_max_bytes bigint, p_max_files bigint, p_wait_ms integer, p_more_ops text[])
RETURNS text LANGUAGE sql VOLATILE AS ${v(`
  SELECT ${s}.write_v3(p_ns, p_path, p_content, p_expect, p_op, p_ancestors, p_max_bytes, p_max_files, p_wait_ms,
    p_more_ops, NULL, NULL)
`)}`,
    `CREATE OR REPLACE FUNCTION ${s}.remove_v2(p_ns text, p_path text, p_op text, p_wait_ms integer)
RETURNS text LANGUAGE sql VOLATILE AS ${v(`SELECT ${s}.remove_v3(p_ns, p_path, p_op, p_wait_ms, NULL)`)}`,
    `CREATE OR REPLACE FUNCTION ${s}.move_v2(p_ns text, p_from text, p_to text, p_op text, p_ancestors text[],
  p_wait_ms integer)
RETURNS text LANGUAGE sql VOLATILE AS ${v(`SELECT ${s}.move_v3(p_ns, p_from, p_to, p_op, p_ancestors, p_wait_ms, NULL)`)}`,
    // Layout 1's change functions, likewise.
    `CREATE OR REPLACE FUNCTION ${s}.write_v1(p_ns text, p_path text, p_content bytea, p_expect text, p_op text, p_ancestors text[])
RETURNS text LANGUAGE sql VOLATILE AS ${v(`
  SELECT ${s}.write_v3(p_ns, p_path, p_content, p_expect, p_op, p_ancestors, NULL, NULL, NULL, '{}', NULL, NULL)
`)}`,
    `CREATE OR REPLACE FUNCTION ${s}.remove_v1(p_ns text, p_path text, p_op text)
RETURNS text LANGUAGE sql VOLATILE AS ${v(`SELECT ${s}.remove_v3(p_ns, p_path, p_op, NULL, NULL)`)}`,
    `CREATE OR REPLACE FUNCTION ${s}.move_v1(p_ns text, p_from text, p_to text, p_op text, p_ancestors text[])
RETURNS text LANGUAGE sql VOLATILE AS ${v(`SELECT ${s}.move_v3(p_ns, p_from, p_to, p_op, p_ancestors, NULL, NULL)`)}`,
    `CREATE OR REPLACE FUNCTION ${s}.installed_v1() RETURNS integer LANGUAGE sql IMMUTABLE AS 'SELECT 1'`,
    `CREATE OR REPLACE FUNCTION ${s}.${FUNCTIONS_REVISION_V3}() RETURNS integer LANGUAGE sql IMMUTABLE AS 'SELECT 2'`,
    `CREATE OR REPLACE FUNCTION ${s}.${FUNCTIONS_REVISION}() RETURNS integer LANGUAGE sql IMMUTABLE AS 'SELECT 1'`,
  ];
}

/** `installed_v2` and `installed_v3`, created last, once the totals are right: layout 3 is complete. */
export function installedMarker(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.installed_v2() RETURNS integer LANGUAGE sql IMMUTABLE AS 'SELECT 2';
CREATE OR REPLACE FUNCTION ${s}.installed_v3() RETURNS integer LANGUAGE sql IMMUTABLE AS 'SELECT 3';
CREATE OR REPLACE FUNCTION ${s}.installed_v4() RETURNS integer LANGUAGE sql IMMUTABLE AS 'SELECT 4'`;
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
