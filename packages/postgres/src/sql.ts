// The statements the driver sends: one statement or one function call per driver call, so each is
// one round trip and one transaction (the layout they call is in layout.ts).
//
// Names are literal (SPEC section 3): no statement builds a LIKE pattern or a regular expression
// from a name. A subtree is a range on the primary key: with COLLATE "C" (byte order, whatever the
// database's collation), the paths beneath `d` are exactly those in [d || '/', d || '0'), because
// '0' is the character right after '/'.

import { type Deadlined, timeLeft } from '@memdir/core/driver';
import { DESCRIBE_FUNCTION } from './describe-sql.js';
import { FUNCTIONS_REVISION, NOW_MS } from './history-sql.js';
import { type HistoryStatements, historyStatements } from './history-statements.js';

/** The layout version. Functions carry it in their names, so two releases can run side by side. */
export const LAYOUT = 4;

/** The bounds of the subtree beneath `path`: [path/, path0) in byte order. */
export function subtree(path: string): [string, string] {
  return [`${path}/`, `${path}0`];
}

/**
 * How long a change function may wait for locks (its `lock_timeout`, set for its transaction): the
 * call's time left, less a margin for the refusal to come back before the deadline.
 */
export function lockWait(options: Deadlined | undefined): number {
  const left = timeLeft(options);
  return Math.max(1, Math.floor(left - Math.min(250, left / 5)));
}

/** `"schema"`, quoted for SQL. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * `body` as a dollar-quoted string for a function definition, with a tag that does not occur in it,
 * so nothing inside (a schema name holding `$fn$`, say) can end the body early and run as SQL, even
 * with `check_function_bodies = off`, where the server no longer parses the body while creating it.
 */
export function functionBody(body: string): string {
  let tag = '$fn$';
  // The body ends where the tag first occurs, also when the body's last characters begin it.
  for (let index = 1; `${body}${tag}`.indexOf(tag) !== body.length; index++) tag = `$fn${index}$`;
  return `${tag}${body}${tag}`;
}

/**
 * The advisory lock keys memdir uses, as the first half of two-key locks: a two-key lock never
 * collides with an application's one-key (bigint) advisory locks.
 */
const SETUP_LOCK_CLASS = 0x6d640001; // 'md' 0001
export const NAMESPACE_LOCK_CLASS = 0x6d640002;

/** The statements of one schema. */
export interface Statements {
  readonly schema: string;
  /** One round trip: which layouts are installed in the schema? ($1: schema name). */
  readonly installed: string;
  readonly read: string;
  /** `read` that records the file's read time (expiry with refreshOnRead). */
  /** `read` of many paths in one statement (read-batch.ts). */
  readonly readMany: string;
  readonly readTouch: string;
  readonly stat: string;
  readonly describeRoot: string;
  /** A path that is not the root: `describe_v3` (describe-sql.ts), the file first. */
  readonly describeDirectory: string;
  /** The same as one statement, for a schema without `describe_v3` (see `PoolShare.withoutDescribe`). */
  readonly describeDirectoryStatement: string;
  readonly describeRootTouch: string;
  readonly describeDirectoryTouch: string;
  readonly listRoot: string;
  readonly listDirectory: string;
  /**
   * What an edit batch (`update`) reads: the file, which of its op ids ($5) are recorded (a
   * replay), the namespace's bytes, and whether the path is a directory.
   */
  readonly batchRead: string;
  readonly write: string;
  /** `write` for a batch of files of one namespace (write-batch.ts), in one statement. */
  readonly writeMany: string;
  readonly edit: string;
  readonly remove: string;
  readonly move: string;
  /** `record_v4`: a file's record by path ($2) or id ($3), its content with $4 (identity-sql.ts). */
  readonly record: string;
  /** `list_records_v4`: a page of records. */
  readonly listRecords: string;
  /**
   * `record_v4` of another namespace ($11 ns, $12 path, $13 content) and `list_records_v4` ($1 to
   * $10) in one statement: the record first (kind 'r'), then the page's rows in their order.
   */
  readonly listRecordsBeside: string;
  readonly updateById: string;
  /** `fill_v4`: one batch of the migration to layout 4. */
  readonly fill: string;
  readonly history: HistoryStatements;
}

/** The statements for tables and functions in `schema`. */
export function statements(schema: string): Statements {
  const s = quoteIdentifier(schema);
  const v = `_v${LAYOUT}`;
  return {
    schema,
    installed: `SELECT string_agg(p.proname, ',') AS installed FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 AND p.proname IN ('installed_v1', 'installed_v2', 'installed_v3', 'installed_v4', '${DESCRIBE_FUNCTION}', '${FUNCTIONS_REVISION}')`,
    // $1 ns, $2 path, $3 path || '/', $4 path || '0'. A file, else a directory marker, else nothing.
    read: `SELECT 'f' AS kind, content, version FROM ${s}.files WHERE ns = $1 AND path = $2
UNION ALL
SELECT 'd', NULL, NULL WHERE EXISTS (SELECT 1 FROM ${s}.files WHERE ns = $1 AND path >= $3 AND path < $4)
LIMIT 1`,
    // $1 ns, $2 paths. `read` for each path, in order, from one snapshot (read-batch.ts): a row per
    // path, its kind null when nothing is there.
    readMany: `SELECT n.kind, n.content, n.version
FROM pg_catalog.unnest($2::text[]) WITH ORDINALITY AS r(path, i)
CROSS JOIN LATERAL (
  SELECT 'f' AS kind, content, version FROM ${s}.files WHERE ns = $1 AND path = r.path COLLATE "C"
  UNION ALL
  SELECT 'd', NULL, NULL WHERE EXISTS (SELECT 1 FROM ${s}.files
    WHERE ns = $1 AND path >= (r.path || '/') COLLATE "C" AND path < (r.path || '0') COLLATE "C")
  UNION ALL
  SELECT NULL, NULL, NULL
  LIMIT 1
) AS n
ORDER BY r.i`,
    // $1 ns, $2 path, $3 path || '/', $4 path || '0'.
    readTouch: `WITH touched AS (
  UPDATE ${s}.files SET touched_at = ${NOW_MS} WHERE ns = $1 AND path = $2 RETURNING content, version
)
SELECT 'f' AS kind, content, version FROM touched
UNION ALL
SELECT 'd', NULL, NULL WHERE NOT EXISTS (SELECT 1 FROM touched)
  AND EXISTS (SELECT 1 FROM ${s}.files WHERE ns = $1 AND path >= $3 AND path < $4)
LIMIT 1`,
    stat: `SELECT 'f' AS kind FROM ${s}.files WHERE ns = $1 AND path = $2
UNION ALL
SELECT 'd' WHERE EXISTS (SELECT 1 FROM ${s}.files WHERE ns = $1 AND path >= $3 AND path < $4)
LIMIT 1`,
    describeRoot: describe(s, true, false),
    describeDirectory: `SELECT * FROM ${s}.${DESCRIBE_FUNCTION}($1, $2, $3, $4, $5)`,
    describeDirectoryStatement: describe(s, false, false),
    describeRootTouch: describe(s, true, true),
    describeDirectoryTouch: describe(s, false, true),
    // $1 ns [, $2 lower, $3 upper].
    listRoot: `SELECT path, size FROM ${s}.files WHERE ns = $1`,
    listDirectory: `SELECT path, size FROM ${s}.files WHERE ns = $1 AND path >= $2 AND path < $3`,
    // $1 ns, $2 path, $3 path || '/', $4 path || '0', $5 op ids.
    batchRead: `SELECT f.content, f.version,
  (SELECT string_agg(op, ',') FROM ${s}.ops WHERE op = ANY ($5::text[])) AS replayed,
  (SELECT bytes::text FROM ${s}.totals WHERE ns = $1) AS bytes,
  CASE WHEN f.version IS NULL AND EXISTS (SELECT 1 FROM ${s}.files WHERE ns = $1 AND path >= $3 AND path < $4)
    THEN 'd' END AS directory
FROM (SELECT 1) AS one LEFT JOIN ${s}.files f ON f.ns = $1 AND f.path = $2`,
    write: `SELECT ${s}.write${v}($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) AS outcome`,
    // $1 ns, then one array per argument of write_v3 ($2 paths, $3 contents, $4 expected versions,
    // $5 op ids, $6 byte quotas, $7 file quotas, $8 records, $9 file ids), $10 the lock wait. One
    // write_v4 per element, in the arrays' order, in one transaction; each path's ancestors as
    // ancestors() makes them (`a/b/c` gives `a`, `a/b`).
    writeMany: `SELECT ${s}.write${v}($1, e.path, e.content, e.expect, e.op,
  ARRAY(SELECT pg_catalog.array_to_string(e.segments[1:k], '/')
    FROM pg_catalog.generate_series(1, pg_catalog.cardinality(e.segments) - 1) AS k ORDER BY k),
  e.max_bytes, e.max_files, $10, '{}', e.record, e.file_id) AS outcome
FROM (
  SELECT u.*, pg_catalog.string_to_array(u.path, '/') AS segments
  FROM ROWS FROM (pg_catalog.unnest($2::text[]), pg_catalog.unnest($3::bytea[]), pg_catalog.unnest($4::text[]),
    pg_catalog.unnest($5::text[]), pg_catalog.unnest($6::bigint[]), pg_catalog.unnest($7::bigint[]),
    pg_catalog.unnest($8::jsonb[]), pg_catalog.unnest($9::text[]))
    WITH ORDINALITY AS u(path, content, expect, op, max_bytes, max_files, record, file_id, i)
) AS e
ORDER BY e.i`,
    edit: `SELECT o_outcome, o_info, o_snippet FROM ${s}.edit${v}($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    remove: `SELECT ${s}.remove${v}($1, $2, $3, $4, $5, $6, $7) AS outcome`,
    move: `SELECT ${s}.move${v}($1, $2, $3, $4, $5, $6, $7) AS outcome`,
    record: `SELECT o_record, o_content FROM ${s}.record${v}($1, $2, $3, $4)`,
    listRecords: `SELECT o_kind, o_item FROM ${s}.list_records${v}($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    // The order is asked for: a UNION ALL by itself promises none.
    listRecordsBeside: `SELECT o_kind, o_item, o_content FROM (
  SELECT 0 AS part, 0::bigint AS n, 'r'::text AS o_kind, o_record AS o_item, o_content
  FROM ${s}.record${v}($11, $12, NULL, $13)
  UNION ALL
  SELECT 1, l.n, l.o_kind, l.o_item, NULL::bytea
  FROM ${s}.list_records${v}($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) WITH ORDINALITY AS l(o_kind, o_item, n)
) AS u ORDER BY part, n`,
    updateById: `SELECT ${s}.update_by_id${v}($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) AS outcome`,
    fill: `SELECT ${s}.fill${v}($1) AS outcome`,
    history: historyStatements(s),
  };
}

/**
 * `describe` in one statement, from one snapshot: the file at the path, or the directory's visible
 * entries at depth 1 and 2 with their visible sizes, or no row. The entries come back as one text
 * value (`{d|f}{size}\t{relative path}` lines), cut at `limit` in listing order: UTF-16 order of
 * names, computed by `listing_key` (C collation sorts UTF-8 bytes, which differs for names mixing
 * U+E000-U+FFFF with characters above U+FFFF). Server work is one index range scan of the subtree.
 *
 * $1 ns, $2 path, $3 limit [, $4 path || '/', $5 path || '0']. With `directoryOnly` (for
 * describe_v3, which looked for the file first) the statement lists the directory and no file.
 */
export function describe(s: string, root: boolean, touch: boolean, directoryOnly = false): string {
  const range = root ? '' : ' AND path >= $4 AND path < $5';
  // The prefix is cut in characters, as the server counts them (a JavaScript length counts a
  // character above U+FFFF twice).
  const rel = root ? 'path' : 'substr(path, char_length($2) + 2)';
  const hidden = (segment: string) => `(left(${segment}, 1) = '.' OR ${segment} = 'node_modules')`;
  // A hidden segment anywhere in `rel`: the relative path has no empty segment, so '/.' marks a
  // dot name, and '/node_modules/' the other hidden name, once it is wrapped in slashes.
  // ASCII names are their own key, decided here rather than in listing_key, which the planner
  // cannot inline (convert_to is only stable) and which costs a function call per name.
  const key = (name: string) =>
    `CASE WHEN ${name} IS NULL OR octet_length(${name}) = char_length(${name}) THEN ${name} ELSE ${s}.listing_key_v1(${name}) END`;
  const anyHidden = `(position('/.' IN '/' || rel) > 0 OR position('/node_modules/' IN '/' || rel || '/') > 0)`;
  // With touch, the file's read time is recorded by the same statement.
  const target = touch
    ? `UPDATE ${s}.files SET touched_at = ${NOW_MS} WHERE ns = $1 AND path = $2 RETURNING content, version`
    : `SELECT content, version FROM ${s}.files WHERE ns = $1 AND path = $2`;
  const noFile = directoryOnly ? '' : ' AND NOT EXISTS (SELECT 1 FROM target)';
  return `WITH ${directoryOnly ? '' : `target AS (\n  ${target}\n), `}beneath AS (
  SELECT ${rel} AS rel, size FROM ${s}.files
  WHERE ns = $1${range}${noFile}
), segments AS (
  SELECT split_part(rel, '/', 1) AS s1, split_part(rel, '/', 2) AS s2,
         split_part(rel, '/', 3) <> '' AS deep,
         CASE WHEN ${anyHidden} THEN 0 ELSE size END AS visible
  FROM beneath
), shown AS (
  SELECT * FROM segments WHERE NOT ${hidden('s1')}
), entries AS (
  SELECT s1, NULL::text AS s2, bool_or(s2 <> '') AS dir, sum(visible) AS size FROM shown GROUP BY s1
  UNION ALL
  SELECT s1, s2, bool_or(deep), sum(visible) FROM shown
  WHERE s2 <> '' AND NOT ${hidden('s2')} GROUP BY s1, s2
), cut AS (
  SELECT * FROM entries
  ORDER BY ${key('s1')}, s2 IS NOT NULL, ${key('s2')}
  LIMIT $3
)
${directoryOnly ? '' : `SELECT 'f' AS kind, content, version, NULL AS size, NULL AS count, NULL AS entries FROM target\nUNION ALL\n`}SELECT 'd'${directoryOnly ? '::text, NULL::bytea, NULL::text' : ', NULL, NULL'},
  (SELECT coalesce(sum(size), 0) FROM entries WHERE s2 IS NULL)::text,
  (SELECT count(*) FROM entries)::text,
  (SELECT string_agg(CASE WHEN dir THEN 'd' ELSE 'f' END || size || E'\\t' || s1 || coalesce('/' || s2, ''), E'\\n') FROM cut)
WHERE ${directoryOnly ? 'TRUE' : 'NOT EXISTS (SELECT 1 FROM target)'}${root ? '' : ' AND EXISTS (SELECT 1 FROM beneath)'}`;
}

/** Taken around the setup: processes that start at once on an empty database take turns. */
export function setupLock(schema: string): { text: string; values: unknown[] } {
  return {
    text: `SELECT pg_catalog.pg_advisory_xact_lock(${SETUP_LOCK_CLASS}, pg_catalog.hashtext($1))`,
    values: [schema],
  };
}
