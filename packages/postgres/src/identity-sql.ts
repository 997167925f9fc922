// Identity in PostgreSQL (layout 4): each file's row carries its record beside its content: file_id
// and changed_at (since layout 3), sha256 (of the content's bytes), created_at and version_id (the
// seq of the version holding the current content, history on; else null). Every change function of
// layout 4 writes them in the statement that writes the content (layout.ts, edit-sql.ts,
// restore-sql.ts); the functions here read records, page through them, change a file by its id,
// and fill the rows an older layout left without them.
//
// A row of an older layout has sha256 null (every function of layout 4 sets it, and so do the
// functions of older layouts, now wrappers over them): it gets its id, hash and creation time when
// `memdir migrate` fills it (fill_v4: batches in primary-key order, a cursor kept in `fills`, so a
// stopped migration goes on where it was), or at its first read, listing or change, whichever
// comes first. A listing reads content only for such a row, once.
import type { ChangeParts } from './edit-sql.js';
import { CHANGE_DECLARE, fileAbove, insertVersion, NEW_FILE_ID } from './history-sql.js';

type Parts = ChangeParts & { replay: string; lock: string; judge: string };

/** The columns and index of layout 4 (no default, so adding them rewrites nothing). */
export function identityTables(s: string): string[] {
  return [
    `ALTER TABLE ${s}.files ADD COLUMN IF NOT EXISTS sha256 bytea, ADD COLUMN IF NOT EXISTS created_at bigint,
  ADD COLUMN IF NOT EXISTS version_id bigint`,
    // locate: a file by its id. Partial: rows without an id yet (older layouts) stay out of it.
    `CREATE INDEX IF NOT EXISTS files_file ON ${s}.files (ns, file_id) WHERE file_id IS NOT NULL`,
    `CREATE TABLE IF NOT EXISTS ${s}.fills (
  step text PRIMARY KEY,
  ns text COLLATE "C" NOT NULL,
  path text COLLATE "C" NOT NULL,
  done boolean NOT NULL DEFAULT false
)`,
    `COMMENT ON TABLE ${s}.fills IS 'memdir (layout 4): how far the migration that fills the records of older rows (file id, sha256, creation time) has come, in primary-key order.'`,
  ];
}

/** The parts of a record as SQL expressions. */
export interface RecordFields {
  readonly file: string;
  /** bytea */
  readonly sha: string;
  readonly size: string;
  readonly created: string;
  readonly changed: string;
  /** bigint seq, or NULL */
  readonly version: string;
  readonly path: string;
}

/**
 * A record as one text value: file id, hex SHA-256, size, created, changed, version seq ('' for
 * none), tab-separated, the path last (records.ts `recordOf` reads it).
 */
export function recordText(f: RecordFields): string {
  return `(${f.file} || E'\\t' || encode(${f.sha}, 'hex') || E'\\t' || ${f.size} || E'\\t' || ${f.created} || E'\\t'
    || ${f.changed} || E'\\t' || coalesce((${f.version})::text, '') || E'\\t' || ${f.path})`;
}

/** The record of a files row aliased `r` (a row variable or a table alias). */
function rowRecord(r: string): string {
  return recordText({
    file: `${r}.file_id`,
    sha: `${r}.sha256`,
    size: `${r}.size`,
    created: `${r}.created_at`,
    changed: `${r}.changed_at`,
    version: `${r}.version_id`,
    path: `${r}.path`,
  });
}

/**
 * Fills the record of the rows of namespace `ns` at the paths `paths` (SQL expressions) that lack
 * one: a new id unless the row has one, the hash of its content, its change time as its creation
 * time (the best the row knows), and the version holding its content when history has it.
 */
function fillRows(s: string, ns: string, paths: string): string {
  return `UPDATE ${s}.files f SET file_id = coalesce(f.file_id, ${NEW_FILE_ID}),
      sha256 = pg_catalog.sha256(f.content), created_at = coalesce(f.created_at, f.changed_at),
      version_id = coalesce(f.version_id, (
        SELECT CASE WHEN v.operation <> 'deleted' AND v.sha256 = pg_catalog.sha256(f.content) THEN v.seq END
        FROM ${s}.versions v WHERE v.ns = f.ns AND v.file_id = f.file_id ORDER BY v.seq DESC LIMIT 1))
    FROM unnest(${paths}) AS u(path)
    WHERE f.ns = ${ns} AND f.path = u.path AND f.sha256 IS NULL`;
}

const RECORD_COLUMNS = 'path, file_id, sha256, size, created_at, changed_at, version_id';

export function identityFunctions(s: string, body: (text: string) => string, parts: Parts): string[] {
  const { isolation, lockWait, lock, record, judge, advance } = parts;
  // Quota answers name the path (the caller of update_by_id may not know it).
  const judgeAt = judge
    .replaceAll('|| p_max_bytes;', "|| p_max_bytes || E'\\t' || v_to;")
    .replaceAll('|| p_max_files;', "|| p_max_files || E'\\t' || v_to;");
  const range = (bounded: boolean) =>
    `ns = p_ns AND path > v_gt AND path >= v_ge AND path >= p_lo${bounded ? ' AND path < p_hi' : ''}`;
  return [
    // The record of the file at p_path, or of the file whose id is p_id (p_path NULL), with its
    // content when p_content: one row, or none. A row of an older layout is filled first.
    `CREATE OR REPLACE FUNCTION ${s}.record_v4(p_ns text, p_path text, p_id text, p_content boolean,
  OUT o_record text, OUT o_content bytea)
RETURNS SETOF record LANGUAGE plpgsql VOLATILE AS ${body(`
DECLARE
  r record;
BEGIN
  FOR attempt IN 1..3 LOOP
    IF p_id IS NULL THEN
      SELECT ${RECORD_COLUMNS}, CASE WHEN p_content THEN content END AS content INTO r
        FROM ${s}.files WHERE ns = p_ns AND path = p_path;
    ELSE
      SELECT ${RECORD_COLUMNS}, CASE WHEN p_content THEN content END AS content INTO r
        FROM ${s}.files WHERE ns = p_ns AND file_id = p_id LIMIT 1;
    END IF;
    IF NOT FOUND THEN RETURN; END IF;
    IF r.sha256 IS NOT NULL AND r.file_id IS NOT NULL THEN
      o_record := ${rowRecord('r')};
      o_content := r.content;
      RETURN NEXT;
      RETURN;
    END IF;
    ${fillRows(s, 'p_ns', 'ARRAY[r.path]')};
  END LOOP;
END
`)}`,
    // A page of the records beneath [p_lo, p_hi) (p_hi NULL: the whole namespace), in the byte
    // order of their keys, after p_gt (exclusive) and from p_ge (inclusive), at most p_limit + 1
    // items (the last says more follow), without content. p_depth 0: every file. n >= 1: files at
    // most n levels beneath (p_prefix is the folder's path and '/', its length p_cut characters),
    // and one marker per folder n levels beneath holding deeper files (key: its path and '/').
    // A skip-scan: one probe of the primary key per item (a plan made once per session), each
    // marker skipping its whole folder (path >= folder || '0'): at most p_limit + 1 probes, plus
    // one per marker at or before p_after, whatever the folders hold. p_after: the caller's cursor; a marker whose key is not past
    // it is skipped unlisted. Rows 'f' with the record, or 'd' with the folder's path.
    `CREATE OR REPLACE FUNCTION ${s}.list_records_v4(p_ns text, p_lo text, p_hi text, p_prefix text, p_cut integer,
  p_depth integer, p_gt text, p_ge text, p_after text, p_limit integer, OUT o_kind text, OUT o_item text)
RETURNS SETOF record LANGUAGE plpgsql VOLATILE AS ${body(`
DECLARE
  r record;
  v_gt text := p_gt;
  v_ge text := p_ge;
  v_count integer := 0;
  v_parts text[];
  v_folder text;
BEGIN
  WHILE v_count <= p_limit LOOP
    IF p_hi IS NULL THEN
      SELECT ${RECORD_COLUMNS} INTO r FROM ${s}.files WHERE ${range(false)} ORDER BY path LIMIT 1;
    ELSE
      SELECT ${RECORD_COLUMNS} INTO r FROM ${s}.files WHERE ${range(true)} ORDER BY path LIMIT 1;
    END IF;
    EXIT WHEN NOT FOUND;
    v_gt := r.path;
    v_parts := string_to_array(substr(r.path, p_cut + 1), '/');
    IF p_depth > 0 AND cardinality(v_parts) > p_depth THEN
      v_folder := p_prefix || array_to_string(v_parts[1:p_depth], '/');
      v_ge := v_folder || '0';
      IF p_after IS NULL OR (v_folder || '/') COLLATE "C" > p_after COLLATE "C" THEN
        o_kind := 'd';
        o_item := v_folder;
        v_count := v_count + 1;
        RETURN NEXT;
      END IF;
    ELSE
      IF r.sha256 IS NULL OR r.file_id IS NULL THEN
        ${fillRows(s, 'p_ns', 'ARRAY[r.path]')};
        SELECT ${RECORD_COLUMNS} INTO r FROM ${s}.files WHERE ns = p_ns AND path = v_gt;
        CONTINUE WHEN NOT FOUND;
      END IF;
      o_kind := 'f';
      o_item := ${rowRecord('r')};
      v_count := v_count + 1;
      RETURN NEXT;
    END IF;
  END LOOP;
END
`)}`,
    // Changes the file whose id is p_id: its content (p_content, NULL: kept), its path (p_path,
    // NULL: kept; p_ancestors its ancestors) or both, as one version ('modified', or 'renamed' with
    // the new content), checked in the contract's order. Returns 'r' || '1' (changed) or '0' (it
    // was so already) || the record after the call, or 'n' (no such file), 'c' || path (the file's
    // hash is not p_expect_sha), 'p' || path (a file above the new path), 'e' (something at the new
    // path), 't' || path (over p_max_file_bytes), or a quota answer as write_v4's, a tab and the
    // path. A replayed call returns the record as it is now (its changed flag as first answered).
    `CREATE OR REPLACE FUNCTION ${s}.update_by_id_v4(p_ns text, p_id text, p_content bytea, p_path text,
  p_ancestors text[], p_expect_sha text, p_max_file_bytes bigint, p_max_bytes bigint, p_max_files bigint,
  p_op text, p_wait_ms integer, p_record jsonb)
RETURNS text LANGUAGE plpgsql VOLATILE AS ${body(`
DECLARE
  ${CHANGE_DECLARE}
  r record;
  v_to text;
  v_new bytea;
  v_new_sha bytea;
  v_vid bigint;
BEGIN
  ${isolation}
  SELECT outcome INTO v_outcome FROM ${s}.ops WHERE op = p_op;
  IF FOUND THEN
    SELECT ${RECORD_COLUMNS} INTO r FROM ${s}.files WHERE ns = p_ns AND file_id = p_id LIMIT 1;
    IF NOT FOUND THEN RETURN 'n'; END IF;
    RETURN 'r' || substr(v_outcome, 2, 1) || ${rowRecord('r')};
  END IF;
  ${lockWait}
  -- A new path is a change of structure: the namespace's lock first, as write_v4 and move_v4 take it.
  IF p_path IS NOT NULL THEN
    ${lock}
  END IF;
  SELECT path, file_id, content, sha256, size, created_at, changed_at, version_id INTO r
    FROM ${s}.files WHERE ns = p_ns AND file_id = p_id LIMIT 1 FOR UPDATE;
  IF NOT FOUND THEN RETURN 'n'; END IF;
  v_sha := coalesce(r.sha256, pg_catalog.sha256(r.content));
  v_to := coalesce(p_path, r.path);
  v_new := coalesce(p_content, r.content);
  IF v_to = r.path AND v_new = r.content THEN
    IF r.sha256 IS NULL OR r.created_at IS NULL THEN
      ${fillRows(s, 'p_ns', 'ARRAY[r.path]')};
      SELECT ${RECORD_COLUMNS} INTO r FROM ${s}.files WHERE ns = p_ns AND path = v_to;
    END IF;
    RETURN 'r0' || ${rowRecord('r')};
  END IF;
  IF p_expect_sha IS NOT NULL AND encode(v_sha, 'hex') <> p_expect_sha THEN RETURN 'c' || r.path; END IF;
  IF v_to <> r.path THEN
    ${fileAbove(s, 'p_ancestors')}
    IF EXISTS (SELECT 1 FROM ${s}.files WHERE ns = p_ns AND (path = v_to OR (path >= v_to || '/' AND path < v_to || '0'))) THEN
      RETURN 'e';
    END IF;
  END IF;
  IF octet_length(v_new) > p_max_file_bytes THEN RETURN 't' || v_to; END IF;
  v_delta := octet_length(v_new) - r.size;
  ${judgeAt}
  v_file := r.file_id;
  v_outcome := 'u1';
  ${record}
  IF p_record IS NOT NULL THEN v_pruned := ${s}.prune_v3(p_ns, v_file, p_record); END IF;
  ${advance}
  v_new_sha := CASE WHEN p_content IS NULL THEN v_sha ELSE pg_catalog.sha256(v_new) END;
  v_vid := CASE WHEN p_record IS NULL THEN NULL ELSE v_seq END;
  -- The row is locked since the first look (and the new path under the namespace's lock).
  UPDATE ${s}.files SET path = v_to, content = v_new, version = replace(gen_random_uuid()::text, '-', ''),
      sha256 = v_new_sha, changed_at = v_at, created_at = coalesce(created_at, changed_at), version_id = v_vid
    WHERE ns = p_ns AND path = r.path RETURNING created_at INTO v_created;
  IF p_record IS NOT NULL THEN
    ${insertVersion(s, { path: 'v_to', previous: `CASE WHEN v_to = r.path THEN NULL ELSE r.path END`, operation: `CASE WHEN v_to = r.path THEN 'modified' ELSE 'renamed' END`, content: 'v_new', restored: 'NULL' })}
  END IF;
  RETURN 'r1' || ${recordText({ file: 'v_file', sha: 'v_new_sha', size: 'octet_length(v_new)', created: 'v_created', changed: 'v_at', version: 'v_vid', path: 'v_to' })};
END
`)}`,
    // One batch of the migration to layout 4: fills the rows (of every namespace) that lack their
    // record, at most p_batch rows looked at, in primary-key order from where the last batch ended.
    // Returns the rows filled || ',' || 't' once every row was looked at, else 'f'.
    `CREATE OR REPLACE FUNCTION ${s}.fill_v4(p_batch integer) RETURNS text LANGUAGE plpgsql VOLATILE AS ${body(`
DECLARE
  v_ns text COLLATE "C";
  v_path text COLLATE "C";
  v_done boolean;
  v_seen integer;
  v_filled integer;
  v_last_ns text;
  v_last_path text;
BEGIN
  INSERT INTO ${s}.fills (step, ns, path) VALUES ('identity', '', '') ON CONFLICT (step) DO NOTHING;
  SELECT ns, path, done INTO v_ns, v_path, v_done FROM ${s}.fills WHERE step = 'identity' FOR UPDATE;
  IF v_done THEN RETURN '0,t'; END IF;
  WITH batch AS (
    SELECT ns, path, sha256 IS NULL AS todo FROM ${s}.files WHERE (ns, path) > (v_ns, v_path)
    ORDER BY ns, path LIMIT p_batch
  ), last AS (
    SELECT ns, path FROM batch ORDER BY ns DESC, path DESC LIMIT 1
  ), filled AS (
    UPDATE ${s}.files f SET file_id = coalesce(f.file_id, ${NEW_FILE_ID}),
        sha256 = pg_catalog.sha256(f.content), created_at = coalesce(f.created_at, f.changed_at),
        version_id = coalesce(f.version_id, (
          SELECT CASE WHEN v.operation <> 'deleted' AND v.sha256 = pg_catalog.sha256(f.content) THEN v.seq END
          FROM ${s}.versions v WHERE v.ns = f.ns AND v.file_id = f.file_id ORDER BY v.seq DESC LIMIT 1))
      FROM batch b WHERE b.todo AND f.ns = b.ns AND f.path = b.path AND f.sha256 IS NULL
      RETURNING 1
  )
  SELECT (SELECT count(*) FROM batch), (SELECT count(*) FROM filled), (SELECT ns FROM last), (SELECT path FROM last)
    INTO v_seen, v_filled, v_last_ns, v_last_path;
  UPDATE ${s}.fills SET ns = coalesce(v_last_ns, ns), path = coalesce(v_last_path, path), done = v_seen < p_batch
    WHERE step = 'identity';
  RETURN v_filled || ',' || CASE WHEN v_seen < p_batch THEN 't' ELSE 'f' END;
END
`)}`,
  ];
}
