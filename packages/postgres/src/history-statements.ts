// The statements of history and admin (layout 3) that are not change functions: each one round trip.
import { NOW_MS } from './history-sql.js';

/** How many versions one `listVersions` call looks at, at most (a page may then come back short). */
export const VERSION_SCAN_LIMIT = 5_000;

/** The columns of a version as `versionOf` (versions.ts) reads them, in this order. */
const COLUMNS = `seq::text, file_id, path, previous_path, operation, encode(sha256, 'hex'), size::text, at::text,
  actor_type, actor_id, command, op, tool_use_id, restored_from::text, redacted_at::text`;
/** The same columns, unconverted (what a listing looks at, content left out). */
const FIELDS = `seq, file_id, path, previous_path, operation, sha256, size, at, actor_type, actor_id, command, op,
  tool_use_id, restored_from, redacted_at`;
/** The separator of namespace keys as the tree index sorts them (see totals_tree in layout.ts). */
const TREE_KEY = `translate(ns, '/', E'\\001')`;

export interface HistoryStatements {
  /**
   * A page of versions, by the namespace's order ($4 unused), a file id or an actor id ($4): at most
   * VERSION_SCAN_LIMIT ($3) looked at below cursor $2, those matching the filters ($5 path, $6-$7
   * its subtree, $8 since, $9 until, $10 operations) kept, at most $11. Rows 'v' || columns, and
   * one row 's' with the count looked at and the lowest seq looked at.
   */
  readonly listVersions: string;
  readonly listFileVersions: string;
  readonly listActorVersions: string;
  /** $1 ns, $2 seq: the version's columns and its content. */
  readonly readVersion: string;
  readonly redact: string;
  /** $1 ns, $2 time or $3 seq, $4 path, $5-$6 its subtree: path, seq, file id, size, hash. */
  readonly treeAt: string;
  readonly restore: string;
  readonly importVersions: string;
  /** $1 ns: files, bytes, versions, last change. */
  readonly usage: string;
  /**
   * The names below key $1 (tree form) from $3, below $4 (or none), each after `$5 || name || \x02`
   * skipped to, starting with $6, at most $7; $2 the length of the base.
   */
  readonly listNamespaces: string;
  readonly drop: string;
  readonly sweep: string;
}

function listing(s: string, by: string): string {
  return `WITH scanned AS (
  SELECT ${FIELDS} FROM ${s}.versions
  WHERE ns = $1${by} AND seq < coalesce($2::bigint, 9223372036854775807) ORDER BY seq DESC LIMIT $3
), matched AS (
  SELECT * FROM scanned
  WHERE ($5::text IS NULL OR path = $5 OR (path >= $6 AND path < $7) OR previous_path = $5
         OR (previous_path >= $6 AND previous_path < $7))
    AND ($8::bigint IS NULL OR at >= $8) AND ($9::bigint IS NULL OR at <= $9)
    AND ($10::text[] IS NULL OR operation = ANY ($10::text[]))
  ORDER BY seq DESC LIMIT $11
)
SELECT 'v' AS kind, ${COLUMNS} FROM matched
UNION ALL
SELECT 's', count(*)::text, min(seq)::text, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
FROM scanned`;
}

export function historyStatements(s: string): HistoryStatements {
  return {
    listVersions: listing(s, ' AND $4::text IS NULL'),
    listFileVersions: listing(s, ' AND file_id = $4'),
    listActorVersions: listing(s, ' AND actor_id = $4'),
    readVersion: `SELECT ${COLUMNS}, content FROM ${s}.versions WHERE ns = $1 AND seq = $2`,
    redact: `UPDATE ${s}.versions SET content = NULL, path = NULL, previous_path = NULL, size = NULL, sha256 = NULL,
  redacted_at = coalesce(redacted_at, ${NOW_MS})
WHERE ns = $1 AND seq = $2 RETURNING ${COLUMNS}`,
    treeAt: `SELECT path, seq::text, file_id, size::text, encode(sha256, 'hex') FROM (
  SELECT DISTINCT ON (file_id) file_id, seq, path, operation, size, sha256, redacted_at FROM ${s}.versions
  WHERE ns = $1 AND ($2::bigint IS NULL OR at <= $2) AND ($3::bigint IS NULL OR seq <= $3)
  ORDER BY file_id, seq DESC
) AS newest
WHERE operation <> 'deleted' AND redacted_at IS NULL
  AND ($4::text IS NULL OR path = $4 OR (path >= $5 AND path < $6))`,
    restore: `SELECT ${s}.restore_v4($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) AS outcome`,
    importVersions: `SELECT ${s}.import_v3($1, $2, $3) AS outcome`,
    usage: `SELECT files::text, bytes::text, versions::text, last_change_at::text FROM ${s}.totals WHERE ns = $1`,
    listNamespaces: `WITH RECURSIVE names(name) AS (
  (SELECT split_part(substr(${TREE_KEY}, $2::integer + 1), E'\\001', 1) FROM ${s}.totals
   WHERE ${TREE_KEY} >= $3::text AND ${TREE_KEY} > $1::text AND ($4::text IS NULL OR ${TREE_KEY} < $4::text)
     AND (files > 0 OR versions > 0)
   ORDER BY ${TREE_KEY} LIMIT 1)
  UNION ALL
  SELECT (SELECT split_part(substr(${TREE_KEY}, $2::integer + 1), E'\\001', 1) FROM ${s}.totals
     WHERE ${TREE_KEY} >= $5::text || n.name || E'\\002' AND ($4::text IS NULL OR ${TREE_KEY} < $4::text)
       AND (files > 0 OR versions > 0)
     ORDER BY ${TREE_KEY} LIMIT 1)
  FROM names n WHERE n.name IS NOT NULL AND starts_with(n.name, $6::text)
)
SELECT name FROM names WHERE name IS NOT NULL AND starts_with(name, $6::text) LIMIT $7`,
    drop: `SELECT ${s}.drop_v3($1, $2, $3, $4) AS outcome`,
    sweep: `SELECT ${s}.sweep_v3($1, $2, $3, $4, $5, $6, $7, $8) AS outcome`,
  };
}
