// DNS rebinding and cross-site requests: MCP's transport asks servers to validate `Origin`. A
// request whose `Host` is not one the server answers for, or which carries an `Origin` not allowed,
// is refused before authentication. CORS stays closed (no `Access-Control-*` header) unless origins
// are allowed, and then opens to those alone (app.ts).

export interface HostCheckOptions {
  /**
   * Host names (with or without `:port`) the server answers for. Empty allows any `Host`, for a
   * server behind a proxy that checks it. @default []
   */
  allowedHosts?: readonly string[];
  /**
   * Origins (`scheme://host[:port]`, as browsers send them) allowed to call, with CORS answered for
   * them alone; a request without `Origin` is allowed. @default []
   */
  allowedOrigins?: readonly string[];
}

/** Why a request is refused (`'host'` or `'origin'`), or `undefined` when it may go on. */
export function checkHostAndOrigin(
  request: Request,
  options: HostCheckOptions,
): 'host' | 'origin' | undefined {
  const { headers } = request;
  const hosts = options.allowedHosts ?? [];
  if (hosts.length > 0) {
    // Fetch drops a `Host` header; runtimes build the request URL from it.
    const host = (headers.get('host') ?? new URL(request.url).host).toLowerCase();
    const bare = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
    if (!hosts.some((allowed) => allowed.toLowerCase() === host || allowed.toLowerCase() === bare)) {
      return 'host';
    }
  }
  const origin = headers.get('origin');
  if (origin !== null && !(options.allowedOrigins ?? []).includes(origin)) return 'origin';
  return undefined;
}
