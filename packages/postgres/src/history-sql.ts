// History in PostgreSQL (layout 3): a versions table beside the files, written by the same function
// call as the change it records (one transaction), and what the change functions share to do it:
// the namespace's version counter and change time (kept in its totals row, taken last, so ids sort
// in commit order), the bounded pruning of one file's old versions, and restore and import as one
// call each.
//
// A version's id is the kit's `sequenceVersionId` of `seq`; times are server milliseconds, made to
// grow within a namespace (an id's time is never below an older id's).

import { MAX_VERSION_SEQUENCE } from '@memdir/core/driver';

/** Server time in ms since the epoch (PL/pgSQL expression). */
export const NOW_MS = `(extract(epoch FROM pg_catalog.clock_timestamp()) * 1000)::bigint`;

/** A new file id: `mem_` and 32 hex digits (122 random bits). */
export const NEW_FILE_ID = `'mem_' || replace(pg_catalog.gen_random_uuid()::text, '-', '')`;

/** The columns of a version as the driver reads them (see `versionOf` in versions.ts). */
export const VERSION_COLUMNS = `seq::text, file_id, path, previous_path, operation, encode(sha256, 'hex'), size::text,
  at::text, actor_type, actor_id, command, op, tool_use_id, restored_from::text, redacted_at::text`;

/**
 * The versions table and its indexes: the primary key orders a namespace's versions (and serves the
 * other filters as a bounded scan), one index for a file's versions (and pruning), one for an actor's.
 */
export function historyTables(s: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${s}.versions (
  ns text COLLATE "C" NOT NULL,
  seq bigint NOT NULL,
  file_id text COLLATE "C" NOT NULL,
  path text COLLATE "C",
  previous_path text COLLATE "C",
  operation text NOT NULL,
  sha256 bytea,
  size integer,
  at bigint NOT NULL,
  actor_type text,
  actor_id text COLLATE "C",
  command text NOT NULL,
  op text NOT NULL,
  tool_use_id text,
  restored_from bigint,
  redacted_at bigint,
  content bytea,
  CONSTRAINT versions_pkey PRIMARY KEY (ns, seq)
)`,
    `COMMENT ON TABLE ${s}.versions IS 'memdir (layout 3): one row per version of a file (history), written in the same call as the change. seq is the namespace''s counter (the id memver_ and 16 digits), at server ms.'`,
    `CREATE INDEX IF NOT EXISTS versions_file ON ${s}.versions (ns, file_id, seq)`,
    `CREATE INDEX IF NOT EXISTS versions_actor ON ${s}.versions (ns, actor_id, seq) WHERE actor_id IS NOT NULL`,
  ];
}

/**
 * One version row of the change in progress: `v_seq`, `v_at`, `v_file`, the record `p_record` and
 * `p_op` of the calling function, with the path, previous path, operation, content and restored id
 * given as SQL expressions.
 */
export function insertVersion(
  s: string,
  fields: { path: string; previous: string; operation: string; content: string; restored: string },
): string {
  const { path, previous, operation, content, restored } = fields;
  return `INSERT INTO ${s}.versions (ns, seq, file_id, path, previous_path, operation, sha256, size, at,
      actor_type, actor_id, command, op, tool_use_id, restored_from, content)
    VALUES (p_ns, v_seq, v_file, ${path}, ${previous}, ${operation}, pg_catalog.sha256(${content}),
      octet_length(${content}), v_at, p_record->'actor'->>'type', p_record->'actor'->>'id',
      p_record->>'command', p_op, p_record->>'toolUseId', ${restored}, ${content});`;
}

/** The functions every change of layout 3 calls. */
export function historyFunctions(s: string, body: (text: string) => string): string[] {
  return [
    // Moves the namespace's totals and change time, and takes p_versions ids: returns the first
    // id's seq and the change's time. Called last by every change (the totals row is the last lock
    // a change takes, held only until its commit: ids and times follow the commit order).
    `CREATE OR REPLACE FUNCTION ${s}.advance_v3(p_ns text, p_delta bigint, p_files bigint, p_versions bigint,
  p_kept bigint, OUT o_seq bigint, OUT o_at bigint)
LANGUAGE plpgsql VOLATILE AS ${body(`
DECLARE
  v_now bigint := ${NOW_MS};
BEGIN
  UPDATE ${s}.totals SET bytes = bytes + p_delta, files = files + p_files, seq = seq + p_versions,
      versions = versions + p_kept, last_change_at = greatest(v_now, coalesce(last_change_at, 0))
    WHERE ns = p_ns RETURNING seq - p_versions + 1, last_change_at INTO o_seq, o_at;
  IF NOT FOUND THEN
    INSERT INTO ${s}.totals AS t (ns, bytes, files, seq, versions, last_change_at)
      VALUES (p_ns, p_delta, p_files, p_versions, p_kept, v_now)
      ON CONFLICT (ns) DO UPDATE SET bytes = t.bytes + excluded.bytes, files = t.files + excluded.files,
        seq = t.seq + excluded.seq, versions = t.versions + excluded.versions,
        last_change_at = greatest(excluded.last_change_at, coalesce(t.last_change_at, 0))
      RETURNING t.seq - p_versions + 1, t.last_change_at INTO o_seq, o_at;
  END IF;
  -- Ids past 2^53 - 1 would round in JavaScript (an import made before imports were checked could
  -- set the counter there): the change is refused whole, MD002 (errors.ts).
  IF p_versions > 0 AND o_seq + p_versions - 1 > ${MAX_VERSION_SEQUENCE} THEN
    RAISE EXCEPTION 'memdir: the version counter is past ${MAX_VERSION_SEQUENCE}, the highest id that stays exact'
      USING ERRCODE = 'MD002';
  END IF;
END
`)}`,
    // Removes at most 4 (the kit's PRUNE_PER_CHANGE) of file p_file's versions that retention
    // (p_record's keepVersions and keepDays) no longer keeps, counting the version about to be
    // recorded as the newest: the oldest ones, older than keepDays and not among the newest
    // keepVersions (the kit's prunable). Two short index scans, whatever the file's history.
    `CREATE OR REPLACE FUNCTION ${s}.prune_v3(p_ns text, p_file text, p_record jsonb) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS ${body(`
DECLARE
  v_bound bigint;
  v_cut bigint := ${NOW_MS} - ((p_record->>'keepDays')::float8 * 86400000)::bigint;
  v_count bigint;
  v_oldest bigint;
BEGIN
  -- Times grow with ids: while the file's oldest version is younger than keepDays, none is old.
  SELECT at INTO v_oldest FROM ${s}.versions WHERE ns = p_ns AND file_id = p_file ORDER BY seq LIMIT 1;
  IF v_oldest IS NULL OR v_oldest > v_cut THEN RETURN 0; END IF;
  SELECT seq INTO v_bound FROM ${s}.versions WHERE ns = p_ns AND file_id = p_file
    ORDER BY seq DESC OFFSET greatest(1, (p_record->>'keepVersions')::integer) - 1 LIMIT 1;
  IF v_bound IS NULL THEN RETURN 0; END IF;
  DELETE FROM ${s}.versions v USING (
    SELECT seq, at FROM ${s}.versions WHERE ns = p_ns AND file_id = p_file ORDER BY seq LIMIT 4
  ) AS oldest
  WHERE v.ns = p_ns AND v.seq = oldest.seq AND oldest.seq <= v_bound AND oldest.at <= v_cut;
  GET DIAGNOSTICS v_count = ROW_COUNT;
  RETURN v_count;
END
`)}`,
    // The ancestors of a path, nearest last ('a/b/c': {a, a/b}).
    `CREATE OR REPLACE FUNCTION ${s}.ancestors_v3(p_path text) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS ${body(`
  SELECT coalesce(array_agg(array_to_string(parts[1:i], '/') ORDER BY i), '{}')
  FROM (SELECT string_to_array(p_path, '/') AS parts) AS split, generate_series(1, cardinality(parts) - 1) AS i
`)}`,
  ];
}

/**
 * Returns 'p' || the path of a file at one of `ancestors` (a text[] expression, nearest last), the
 * one nearest the root first: a new path cannot go below a file. One probe by the whole primary key
 * per ancestor, the shape of the function's other lookups. Not `path = ANY (ancestors)`: PL/pgSQL
 * keeps a generic plan per session, and the one it made for that while the table was small (a
 * bitmap scan of the namespace's `ns` entries, filtered by path) read every file of the namespace,
 * so each new file cost more than the last until the next ANALYZE replanned it: a copy of 10,000
 * files into an empty schema slowed from 1,900 to 230 files/s (test/plans.test.ts counts the
 * tuples read).
 */
export function fileAbove(s: string, ancestors: string): string {
  return `FOREACH v_conflict IN ARRAY ${ancestors} LOOP
    IF EXISTS (SELECT 1 FROM ${s}.files WHERE ns = p_ns AND path = v_conflict) THEN RETURN 'p' || v_conflict; END IF;
  END LOOP;`;
}

/**
 * A function made with the functions of this release: a schema of layout 3 without it has the
 * bodies of an earlier one (before fileAbove), which the next setup replaces. Named for the
 * revision of layout 3's function bodies; a later fix to a body takes a new name.
 */
export const FUNCTIONS_REVISION_V3 = 'revision_v3_2';

/**
 * The revision of layout 4's function bodies (identity-sql.ts): a schema of layout 4 without it has
 * the bodies of an earlier release, which the next setup replaces.
 */
export const FUNCTIONS_REVISION = 'revision_v4_2';

/** The declarations every change function of layout 3 starts with. */
export const CHANGE_DECLARE = `v_outcome text;
  v_conflict text;
  v_old integer;
  v_delta bigint := 0;
  v_files bigint := 0;
  v_bytes bigint;
  v_count bigint;
  v_file text;
  v_seq bigint;
  v_at bigint;
  v_n bigint := 1;
  v_pruned bigint := 0;
  v_paths text[];
  v_ids text[];
  v_sha bytea;
  v_created bigint;`;

/** The versions of a change of many files, one per file of v_paths and v_ids (by path), from v_seq on. */
export function insertFolder(s: string, operation: string): string {
  return `INSERT INTO ${s}.versions (ns, seq, file_id, path, operation, at, actor_type, actor_id, command, op,
      tool_use_id)
    SELECT p_ns, v_seq + u.i - 1, u.id, u.path, '${operation}', v_at, p_record->'actor'->>'type',
      p_record->'actor'->>'id', p_record->>'command', p_op, p_record->>'toolUseId'
    FROM unnest(v_paths, v_ids) WITH ORDINALITY AS u(path, id, i)`;
}

/** Prunes each file of v_ids (v_n of them) as a change of it would, adding to v_pruned. */
export function pruneEach(s: string): string {
  return `IF p_record IS NOT NULL THEN
    FOR i IN 1..v_n LOOP
      v_pruned := v_pruned + ${s}.prune_v3(p_ns, v_ids[i], p_record);
    END LOOP;
  END IF;`;
}
