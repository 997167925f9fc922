// Restore and import (layout 3): each one function call, so a restored version is written in the
// same transaction as the file it writes back, and an import is all or nothing.
import type { ChangeParts } from './edit-sql.js';
import { CHANGE_DECLARE, fileAbove, insertVersion, NEW_FILE_ID } from './history-sql.js';

/** What restore and import use of the change functions' pieces. */
type Parts = ChangeParts & { replay: string; lock: string; judge: string };

export function restoreFunctions(s: string, body: (text: string) => string, parts: Parts): string[] {
  const { isolation, replay, lockWait, lock, record, advance } = parts;
  // Quota answers name the path too (it is the version's own when no p_to is given).
  const judge = parts.judge
    .replaceAll('|| p_max_bytes;', "|| p_max_bytes || E'\\t' || v_to;")
    .replaceAll('|| p_max_files;', "|| p_max_files || E'\\t' || v_to;");
  return [
    // Writes version p_seq's content back at p_to (NULL: its own path) as a new 'restored' version.
    // p_check: compare the file there with p_expect_sha (NULL: no file may be there). Returns
    // 'v' || seq, time, file id, size, SHA-256 and path (tab-separated, the path last), or 'n' (no
    // such version, or no content), 'p' || path (PATH_CONFLICT), 'c' || path (CONFLICT), 't' ||
    // path (TOO_LARGE), or a quota answer as write_v3's, a tab and the path.
    `CREATE OR REPLACE FUNCTION ${s}.restore_v3(p_ns text, p_seq bigint, p_to text, p_check boolean, p_expect_sha text,
  p_max_file_bytes bigint, p_max_bytes bigint, p_max_files bigint, p_op text, p_wait_ms integer, p_record jsonb)
RETURNS text LANGUAGE sql VOLATILE AS ${body(`
  SELECT ${s}.restore_v4(p_ns, p_seq, p_to, p_check, p_expect_sha, p_max_file_bytes, p_max_bytes, p_max_files, p_op,
    p_wait_ms, p_record)
`)}`,
    `CREATE OR REPLACE FUNCTION ${s}.restore_v4(p_ns text, p_seq bigint, p_to text, p_check boolean, p_expect_sha text,
  p_max_file_bytes bigint, p_max_bytes bigint, p_max_files bigint, p_op text, p_wait_ms integer, p_record jsonb)
RETURNS text LANGUAGE plpgsql VOLATILE AS ${body(`
DECLARE
  ${CHANGE_DECLARE}
  v_src ${s}.versions%ROWTYPE;
  v_to text;
  v_current bytea;
  v_last text;
  v_last_path text;
BEGIN
  ${isolation}
  ${replay}
  ${lockWait}
  ${lock}
  SELECT * INTO v_src FROM ${s}.versions WHERE ns = p_ns AND seq = p_seq;
  IF NOT FOUND OR v_src.content IS NULL THEN RETURN 'n'; END IF;
  v_to := coalesce(p_to, v_src.path);
  ${fileAbove(s, `${s}.ancestors_v3(v_to)`)}
  IF EXISTS (SELECT 1 FROM ${s}.files WHERE ns = p_ns AND path >= v_to || '/' AND path < v_to || '0') THEN
    RETURN 'p' || v_to;
  END IF;
  SELECT size, file_id, content INTO v_old, v_file, v_current FROM ${s}.files
    WHERE ns = p_ns AND path = v_to FOR UPDATE;
  IF p_check AND (CASE WHEN p_expect_sha IS NULL THEN v_old IS NOT NULL
      ELSE v_old IS NULL OR encode(pg_catalog.sha256(v_current), 'hex') <> p_expect_sha END) THEN
    RETURN 'c' || v_to;
  END IF;
  IF octet_length(v_src.content) > p_max_file_bytes THEN RETURN 't' || v_to; END IF;
  v_delta := octet_length(v_src.content) - coalesce(v_old, 0);
  IF v_old IS NULL THEN v_files := 1; END IF;
  ${judge}
  IF v_old IS NULL THEN
    -- A deleted file comes back as itself where it was deleted; anywhere else it is a copy.
    SELECT operation, path INTO v_last, v_last_path FROM ${s}.versions
      WHERE ns = p_ns AND file_id = v_src.file_id ORDER BY seq DESC LIMIT 1;
    v_file := CASE WHEN v_last = 'deleted' AND v_last_path = v_to THEN v_src.file_id ELSE ${NEW_FILE_ID} END;
  ELSE
    v_file := coalesce(v_file, ${NEW_FILE_ID});
  END IF;
  v_pruned := ${s}.prune_v3(p_ns, v_file, p_record);
  ${advance}
  -- The file is locked already (its row, or the namespace for a new path): written after the
  -- totals row, with the change's time and version id.
  IF v_old IS NULL THEN
    INSERT INTO ${s}.files (ns, path, content, version, file_id, changed_at, sha256, created_at, version_id)
      VALUES (p_ns, v_to, v_src.content, replace(gen_random_uuid()::text, '-', ''), v_file, v_at,
        pg_catalog.sha256(v_src.content), v_at, v_seq);
  ELSE
    UPDATE ${s}.files SET content = v_src.content, version = replace(gen_random_uuid()::text, '-', ''),
        file_id = v_file, changed_at = v_at, sha256 = pg_catalog.sha256(v_src.content),
        created_at = coalesce(created_at, changed_at), version_id = v_seq
      WHERE ns = p_ns AND path = v_to;
  END IF;
  ${insertVersion(s, { path: 'v_to', previous: 'NULL', operation: `'restored'`, content: 'v_src.content', restored: 'p_seq' })}
  v_outcome := 'v' || v_seq || E'\\t' || v_at || E'\\t' || v_file || E'\\t' || octet_length(v_src.content)
    || E'\\t' || encode(pg_catalog.sha256(v_src.content), 'hex') || E'\\t' || v_to;
  ${record}
  RETURN v_outcome;
END
`)}`,
    // Writes versions of another history as they are (p_meta: their fields, with i their index in
    // p_contents), after the namespace's own; moves its counter past the last. 'c' when the
    // namespace holds a version not older than the first one, else 't'.
    `CREATE OR REPLACE FUNCTION ${s}.import_v3(p_ns text, p_meta jsonb, p_contents bytea[])
RETURNS text LANGUAGE plpgsql VOLATILE AS ${body(`
DECLARE
  v_newest bigint;
  v_count bigint := jsonb_array_length(p_meta);
BEGIN
  ${isolation}
  ${lock}
  SELECT seq INTO v_newest FROM ${s}.versions WHERE ns = p_ns ORDER BY seq DESC LIMIT 1;
  IF v_newest >= (p_meta->0->>'seq')::bigint THEN RETURN 'c'; END IF;
  INSERT INTO ${s}.versions (ns, seq, file_id, path, previous_path, operation, sha256, size, at, actor_type,
      actor_id, command, op, tool_use_id, restored_from, redacted_at, content)
    SELECT p_ns, m.seq, m.file_id, m.path, m.previous_path, m.operation, decode(m.sha256, 'hex'), m.size, m.at,
      m.actor_type, m.actor_id, m.command, m.op, m.tool_use_id, m.restored_from, m.redacted_at, p_contents[m.i]
    FROM jsonb_to_recordset(p_meta) AS m(seq bigint, file_id text, path text, previous_path text, operation text,
      sha256 text, size integer, at bigint, actor_type text, actor_id text, command text, op text,
      tool_use_id text, restored_from bigint, redacted_at bigint, i integer);
  INSERT INTO ${s}.totals AS t (ns, bytes, files, seq, versions)
    VALUES (p_ns, 0, 0, (p_meta->(v_count - 1)::integer->>'seq')::bigint, v_count)
    ON CONFLICT (ns) DO UPDATE SET seq = greatest(t.seq, excluded.seq), versions = t.versions + excluded.versions;
  RETURN 't';
END
`)}`,
  ];
}
