// Everything the store says to PostgreSQL: the layout (tables and the functions of layout 1) and the
// statements the driver sends. One statement or one function call per driver call, so each is one
// round trip and one transaction.
//
// Names are literal (SPEC section 3): no statement builds a LIKE pattern or a regular expression
// from a name. A subtree is a range on the primary key: with COLLATE "C" (byte order, whatever the
// database's collation), the paths beneath `d` are exactly those in [d || '/', d || '0'), because
// '0' is the character right after '/'.

/** The layout version. Functions carry it in their names, so two releases can run side by side. */
export const LAYOUT = 1;

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
const NAMESPACE_LOCK_CLASS = 0x6d640002;

/** The statements of one schema. */
export interface Statements {
  readonly schema: string;
  /** One round trip: is layout 1 installed in the schema? ($1: schema name). */
  readonly installed: string;
  /** The setup, run inside one transaction by `setup()`. */
  readonly setup: readonly string[];
  readonly read: string;
  readonly stat: string;
  readonly describeRoot: string;
  readonly describeDirectory: string;
  readonly listRoot: string;
  readonly listDirectory: string;
  /**
   * The locked path of an edit, as simple queries (values written in as SQL literals, already
   * escaped): `BEGIN` and the row under its lock; then the write and `COMMIT`.
   */
  lockedRead(ns: string, path: string): string;
  lockedWrite(
    ns: string,
    path: string,
    content: string,
    version: string,
    op: string,
    ancestors: string,
    otherOps: string,
  ): string;
  readonly write: string;
  readonly remove: string;
  readonly move: string;
}

/** The statements for tables and functions in `schema`. */
export function statements(schema: string): Statements {
  const s = quoteIdentifier(schema);
  return {
    schema,
    installed: `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 AND p.proname = 'installed_v${LAYOUT}') AS installed`,
    setup: setupStatements(s),
    // $1 ns, $2 path, $3 path || '/', $4 path || '0'. A file, else a directory marker, else nothing.
    read: `SELECT 'f' AS kind, content, version FROM ${s}.files WHERE ns = $1 AND path = $2
UNION ALL
SELECT 'd', NULL, NULL WHERE EXISTS (SELECT 1 FROM ${s}.files WHERE ns = $1 AND path >= $3 AND path < $4)
LIMIT 1`,
    stat: `SELECT 'f' AS kind FROM ${s}.files WHERE ns = $1 AND path = $2
UNION ALL
SELECT 'd' WHERE EXISTS (SELECT 1 FROM ${s}.files WHERE ns = $1 AND path >= $3 AND path < $4)
LIMIT 1`,
    describeRoot: describe(s, true),
    describeDirectory: describe(s, false),
    // $1 ns [, $2 lower, $3 upper].
    listRoot: `SELECT path, size FROM ${s}.files WHERE ns = $1`,
    listDirectory: `SELECT path, size FROM ${s}.files WHERE ns = $1 AND path >= $2 AND path < $3`,
    lockedRead: (ns, path) =>
      'BEGIN; SET LOCAL idle_in_transaction_session_timeout = 5000; SET LOCAL lock_timeout = 3000; ' +
      `SELECT content, version FROM ${s}.files WHERE ns = ${ns} AND path = ${path} FOR UPDATE`,
    // The write records the first edit's op id; the other edits of the batch are recorded with the
    // same outcome, so that a replay of any of them is recognised.
    lockedWrite: (ns, path, content, version, op, ancestors, otherOps) =>
      `WITH written AS (SELECT ${s}.write_v${LAYOUT}(${ns}, ${path}, ${content}, ${version}, ${op}, ${ancestors}) AS outcome),
recorded AS (INSERT INTO ${s}.ops (op, outcome) SELECT other, written.outcome FROM written, unnest(${otherOps}) AS other
  WHERE left(written.outcome, 1) = 'v' ON CONFLICT (op) DO NOTHING)
SELECT outcome FROM written; COMMIT`,
    write: `SELECT ${s}.write_v${LAYOUT}($1, $2, $3, $4, $5, $6) AS outcome`,
    remove: `SELECT ${s}.remove_v${LAYOUT}($1, $2, $3) AS outcome`,
    move: `SELECT ${s}.move_v${LAYOUT}($1, $2, $3, $4, $5) AS outcome`,
  };
}

/**
 * `describe` in one statement, from one snapshot: the file at the path, or the directory's visible
 * entries at depth 1 and 2 with their visible sizes, or no row. The entries come back as one text
 * value (`{d|f}{size}\t{relative path}` lines), cut at `limit` in listing order: UTF-16 order of
 * names, computed by `listing_key` (C collation sorts UTF-8 bytes, which differs for names mixing
 * U+E000-U+FFFF with characters above U+FFFF). Server work is one index range scan of the subtree.
 *
 * $1 ns, $2 path, $3 limit [, $4 path || '/', $5 path || '0'].
 */
function describe(s: string, root: boolean): string {
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
    `CASE WHEN ${name} IS NULL OR octet_length(${name}) = char_length(${name}) THEN ${name} ELSE ${s}.listing_key_v${LAYOUT}(${name}) END`;
  const anyHidden = `(position('/.' IN '/' || rel) > 0 OR position('/node_modules/' IN '/' || rel || '/') > 0)`;
  return `WITH target AS (
  SELECT content, version FROM ${s}.files WHERE ns = $1 AND path = $2
), beneath AS (
  SELECT ${rel} AS rel, size FROM ${s}.files
  WHERE ns = $1${range} AND NOT EXISTS (SELECT 1 FROM target)
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
SELECT 'f' AS kind, content, version, NULL AS size, NULL AS count, NULL AS entries FROM target
UNION ALL
SELECT 'd', NULL, NULL,
  (SELECT coalesce(sum(size), 0) FROM entries WHERE s2 IS NULL)::text,
  (SELECT count(*) FROM entries)::text,
  (SELECT string_agg(CASE WHEN dir THEN 'd' ELSE 'f' END || size || E'\\t' || s1 || coalesce('/' || s2, ''), E'\\n') FROM cut)
WHERE NOT EXISTS (SELECT 1 FROM target)${root ? '' : ' AND EXISTS (SELECT 1 FROM beneath)'}`;
}

/**
 * Layout 1, created under one advisory lock (so processes starting at once on an empty database
 * take turns) in one transaction (so a crash leaves nothing half made). `installed_v1` is created
 * last: once it exists, everything of layout 1 does.
 */
function setupStatements(s: string): string[] {
  const lock = `pg_catalog.pg_advisory_xact_lock(${NAMESPACE_LOCK_CLASS}, pg_catalog.hashtext(p_ns))`;
  const isolation = `IF pg_catalog.current_setting('transaction_isolation') = 'repeatable read' THEN
    RAISE EXCEPTION 'memdir needs read committed or serializable isolation, not repeatable read'
      USING ERRCODE = 'MD001';
  END IF;`;
  // A change whose op id is on record already happened: a replayed call returns what it returned.
  const replay = `SELECT outcome INTO v_outcome FROM ${s}.ops WHERE op = p_op;
  IF FOUND THEN RETURN v_outcome; END IF;`;
  const record = `INSERT INTO ${s}.ops (op, outcome) VALUES (p_op, v_outcome);
  IF pg_catalog.random() < 0.02 THEN
    DELETE FROM ${s}.ops WHERE op IN (
      SELECT op FROM ${s}.ops WHERE at < pg_catalog.now() - interval '10 minutes'
      ORDER BY at LIMIT 200 FOR UPDATE SKIP LOCKED);
  END IF;`;
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
    // Writes a whole file. p_expect: NULL creates or replaces, '' requires that no file is there,
    // anything else is the version the file must have. Returns 'v' || the new version, 'c' when
    // the expectation fails, 'p' || path for a PATH_CONFLICT at path.
    `CREATE OR REPLACE FUNCTION ${s}.write_v1(p_ns text, p_path text, p_content bytea, p_expect text, p_op text, p_ancestors text[])
RETURNS text LANGUAGE plpgsql VOLATILE AS ${functionBody(`
DECLARE
  v_outcome text;
  v_conflict text;
  v_version text := replace(gen_random_uuid()::text, '-', '');
BEGIN
  ${isolation}
  ${replay}
  -- A file that exists has no file above it and is no directory: replacing it needs only its row
  -- lock, never the namespace lock.
  IF p_expect IS NULL OR p_expect <> '' THEN
    UPDATE ${s}.files SET content = p_content, version = v_version
      WHERE ns = p_ns AND path = p_path AND (p_expect IS NULL OR version = p_expect);
    IF FOUND THEN
      v_outcome := 'v' || v_version;
      ${record}
      RETURN v_outcome;
    END IF;
    IF p_expect IS NOT NULL THEN RETURN 'c'; END IF;
  END IF;
  -- A new path: the structural checks of one namespace take turns. Each statement below takes a
  -- new snapshot (VOLATILE, read committed), so it sees what earlier lock holders committed.
  PERFORM ${lock};
  SELECT path INTO v_conflict FROM ${s}.files WHERE ns = p_ns AND path = ANY (p_ancestors) LIMIT 1;
  IF FOUND THEN RETURN 'p' || v_conflict; END IF;
  IF EXISTS (SELECT 1 FROM ${s}.files WHERE ns = p_ns AND path >= p_path || '/' AND path < p_path || '0') THEN
    RETURN 'p' || p_path;
  END IF;
  IF p_expect IS NULL THEN
    INSERT INTO ${s}.files AS f (ns, path, content, version) VALUES (p_ns, p_path, p_content, v_version)
      ON CONFLICT (ns, path) DO UPDATE SET content = excluded.content, version = excluded.version;
  ELSE
    INSERT INTO ${s}.files (ns, path, content, version) VALUES (p_ns, p_path, p_content, v_version)
      ON CONFLICT (ns, path) DO NOTHING;
    IF NOT FOUND THEN RETURN 'c'; END IF;
  END IF;
  v_outcome := 'v' || v_version;
  ${record}
  RETURN v_outcome;
END
`)}`,
    // Removes a file or a directory with everything beneath it. Returns 't', or 'f' for nothing.
    `CREATE OR REPLACE FUNCTION ${s}.remove_v1(p_ns text, p_path text, p_op text)
RETURNS text LANGUAGE plpgsql VOLATILE AS ${functionBody(`
DECLARE
  v_outcome text;
BEGIN
  ${isolation}
  ${replay}
  PERFORM ${lock};
  DELETE FROM ${s}.files WHERE ns = p_ns AND (path = p_path OR (path >= p_path || '/' AND path < p_path || '0'));
  IF NOT FOUND THEN RETURN 'f'; END IF;
  v_outcome := 't';
  ${record}
  RETURN v_outcome;
END
`)}`,
    // Moves a file or a directory. Returns 't', 'n' (nothing at p_from), 'p' || path (a file above
    // p_to) or 'e' (something at p_to), checked in that order.
    `CREATE OR REPLACE FUNCTION ${s}.move_v1(p_ns text, p_from text, p_to text, p_op text, p_ancestors text[])
RETURNS text LANGUAGE plpgsql VOLATILE AS ${functionBody(`
DECLARE
  v_outcome text;
  v_conflict text;
BEGIN
  ${isolation}
  ${replay}
  PERFORM ${lock};
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
    `CREATE OR REPLACE FUNCTION ${s}.installed_v1() RETURNS integer LANGUAGE sql IMMUTABLE AS 'SELECT 1'`,
  ];
}

/** Taken around the setup: processes that start at once on an empty database take turns. */
export function setupLock(schema: string): { text: string; values: unknown[] } {
  return {
    text: `SELECT pg_catalog.pg_advisory_xact_lock(${SETUP_LOCK_CLASS}, pg_catalog.hashtext($1))`,
    values: [schema],
  };
}
