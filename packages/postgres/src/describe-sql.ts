// `describe` of a path that is not the root, as a function: the file by its primary key first, and
// the directory's statement (sql.ts) only when no file is there. As one statement, the executor
// sets up the directory's whole plan (aggregates, a sort, a dozen CTE scans) for every call, a file
// view too: about 0.15 ms of execution here against 0.02 ms for the primary-key lookup alone. The
// function is STABLE, so both of its queries read the calling statement's snapshot: the view is
// still taken from one snapshot. (With refreshOnRead the view records the read, which a STABLE
// function may not: that one stays a single statement.)

/** The function's name in layout 3; its presence marks a schema that has it (see setup.ts). */
export const DESCRIBE_FUNCTION = 'describe_v3';

/**
 * `describe_v3`, for the quoted schema `s`, its body quoted by `v`; `directory` is the statement of
 * a directory's view (sql.ts's `describe`).
 */
export function describeFunction(s: string, v: (body: string) => string, directory: string): string {
  // $1 ns, $2 path, $3 limit, $4 path || '/', $5 path || '0': the directory statement's own
  // parameters, which PL/pgSQL gives it as the function's.
  return `CREATE OR REPLACE FUNCTION ${s}.${DESCRIBE_FUNCTION}(p_ns text, p_path text, p_limit bigint,
  p_lower text, p_upper text)
RETURNS TABLE (o_kind text, o_content bytea, o_version text, o_size text, o_count text, o_entries text)
LANGUAGE plpgsql STABLE AS ${v(`
BEGIN
  RETURN QUERY SELECT 'f'::text, f.content, f.version::text, NULL::text, NULL::text, NULL::text
    FROM ${s}.files f WHERE f.ns = p_ns AND f.path = p_path;
  IF FOUND THEN RETURN; END IF;
  RETURN QUERY ${directory};
END
`)}`;
}
