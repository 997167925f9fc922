// The admin side in PostgreSQL (layout 3): a namespace dropped and swept in bounded batches, one
// function call each. Each takes its locks in the order changes do (files, then versions, then the
// totals row), so neither deadlocks with a change.
import type { ChangeParts } from './edit-sql.js';
import { CHANGE_DECLARE, insertFolder, NEW_FILE_ID, NOW_MS, pruneEach } from './history-sql.js';

type Parts = ChangeParts & { replay: string; lock: string; judge: string };

export function adminFunctions(s: string, body: (text: string) => string, parts: Parts): string[] {
  const { lock, advance } = parts;
  return [
    // Removes at most p_batch files and versions of namespace p_ns and those nested in it (ns in
    // [p_lo, p_hi)), keeping their totals; once none is left, their totals rows (so the version
    // counter starts again). Returns the count removed || ',' || 't' when done, else 'f'.
    `CREATE OR REPLACE FUNCTION ${s}.drop_v3(p_ns text, p_lo text, p_hi text, p_batch integer)
RETURNS text LANGUAGE plpgsql VOLATILE AS ${body(`
DECLARE
  v_removed bigint := 0;
  v_versions bigint := 0;
  v_ns text[];
  v_n bigint[];
  v_bytes bigint[];
  v_vns text[];
  v_vn bigint[];
BEGIN
  WITH gone AS (
    DELETE FROM ${s}.files f USING (
      SELECT ns, path FROM ${s}.files WHERE ns = p_ns OR (ns >= p_lo AND ns < p_hi) LIMIT p_batch
    ) AS doomed
    WHERE f.ns = doomed.ns AND f.path = doomed.path
    RETURNING f.ns, f.size
  ), by_ns AS (SELECT ns, count(*) AS n, sum(size) AS bytes FROM gone GROUP BY ns)
  SELECT coalesce(sum(n), 0), array_agg(ns), array_agg(n), array_agg(bytes) INTO v_removed, v_ns, v_n, v_bytes FROM by_ns;
  IF v_removed < p_batch THEN
    WITH gone AS (
      DELETE FROM ${s}.versions v USING (
        SELECT ns, seq FROM ${s}.versions WHERE ns = p_ns OR (ns >= p_lo AND ns < p_hi) LIMIT p_batch - v_removed
      ) AS doomed
      WHERE v.ns = doomed.ns AND v.seq = doomed.seq
      RETURNING v.ns
    ), by_ns AS (SELECT ns, count(*) AS n FROM gone GROUP BY ns)
    SELECT coalesce(sum(n), 0), array_agg(ns), array_agg(n) INTO v_versions, v_vns, v_vn FROM by_ns;
  END IF;
  UPDATE ${s}.totals t SET files = t.files - u.n, bytes = t.bytes - u.bytes
    FROM unnest(v_ns, v_n, v_bytes) AS u(ns, n, bytes) WHERE t.ns = u.ns;
  UPDATE ${s}.totals t SET versions = t.versions - u.n FROM unnest(v_vns, v_vn) AS u(ns, n) WHERE t.ns = u.ns;
  v_removed := v_removed + v_versions;
  IF v_removed < p_batch THEN
    DELETE FROM ${s}.totals WHERE ns = p_ns OR (ns >= p_lo AND ns < p_hi);
    RETURN v_removed || ',t';
  END IF;
  RETURN v_removed || ',f';
END
`)}`,
    // One batch of upkeep of namespace p_ns: at most p_batch files whose last change or touched read
    // is before p_expire_before removed (found in the namespace's range of the primary key: an index
    // on the times would cost every change an index update, and pull the listings' plans to it) (each a 'deleted' version with p_record and p_op, history
    // on), then versions that retention (p_keep, p_days, judged at p_now) no longer keeps, for every
    // file, deleted ones included. Returns expired || ',' || pruned || ',' || done (t/f).
    `CREATE OR REPLACE FUNCTION ${s}.sweep_v3(p_ns text, p_op text, p_expire_before bigint, p_keep integer,
  p_days float8, p_now bigint, p_record jsonb, p_batch integer)
RETURNS text LANGUAGE plpgsql VOLATILE AS ${body(`
DECLARE
  ${CHANGE_DECLARE}
  v_budget bigint := p_batch;
  v_expired bigint := 0;
  v_swept bigint := 0;
BEGIN
  IF p_expire_before IS NOT NULL THEN
    ${lock}
    WITH gone AS (
      DELETE FROM ${s}.files f USING (
        SELECT path FROM ${s}.files
        WHERE ns = p_ns AND greatest(changed_at, coalesce(touched_at, 0)) < p_expire_before
        LIMIT p_batch
      ) AS stale
      WHERE f.ns = p_ns AND f.path = stale.path
      RETURNING f.path, f.size, coalesce(f.file_id, ${NEW_FILE_ID}) AS id
    ) SELECT -count(*), -coalesce(sum(size), 0), array_agg(path ORDER BY path), array_agg(id ORDER BY path)
      INTO v_files, v_delta, v_paths, v_ids FROM gone;
    v_expired := -v_files;
    IF v_expired > 0 THEN
      v_n := v_expired;
      ${pruneEach(s)}
      ${advance}
      IF p_record IS NOT NULL THEN
        ${insertFolder(s, 'deleted')};
      END IF;
    END IF;
    v_budget := v_budget - v_expired;
  END IF;
  IF p_keep IS NOT NULL AND v_budget > 0 THEN
    WITH ranked AS (
      SELECT seq, at, row_number() OVER (PARTITION BY file_id ORDER BY seq DESC) AS rn
      FROM ${s}.versions WHERE ns = p_ns
    ), gone AS (
      DELETE FROM ${s}.versions WHERE ns = p_ns AND seq IN (
        SELECT seq FROM ranked
        WHERE rn > greatest(1, p_keep) AND at <= coalesce(p_now, ${NOW_MS}) - (p_days * 86400000)::bigint
        ORDER BY seq LIMIT v_budget
      ) RETURNING 1
    ) SELECT count(*) INTO v_swept FROM gone;
    IF v_swept > 0 THEN
      UPDATE ${s}.totals SET versions = versions - v_swept WHERE ns = p_ns;
    END IF;
    v_budget := v_budget - v_swept;
  END IF;
  RETURN v_expired || ',' || v_swept || ',' || CASE WHEN v_budget > 0 THEN 't' ELSE 'f' END;
END
`)}`,
  ];
}
