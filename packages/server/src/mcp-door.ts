// The MCP door: MCP's Streamable HTTP transport without server sessions. Each POST is answered by a
// fresh MCP server connected to a fresh transport, then both are dropped, so nothing a client needs
// lives in one process: N processes behind a round-robin balancer serve the same store, and a
// restarted or killed process loses no client. The body is bounded (size, depth, batch) before it is
// parsed, and the token is charged one call per `tools/call` it holds.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Door } from './app.js';
import type { TokenGrant } from './auth.js';
import { type BodyLimits, readJsonBody } from './body.js';

/** The options of `mcpDoor`. */
export interface McpDoorOptions {
  /** Makes the MCP server of one request, for the token's grant (its namespace and mode). */
  server: (grant: TokenGrant) => Server | Promise<Server>;
  /**
   * Bounds on the body. `maxBatch` defaults to 100, the MCP SDK's own cap, here enforced before
   * any work on the elements. @default { maxBytes: 10 MiB, maxDepth: 64, maxBatch: 100 }
   */
  limits?: BodyLimits;
}

const METHOD = /^[A-Za-z0-9/_.-]{1,64}$/;

function rpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

function methodOf(message: unknown): string {
  const method = (message as { method?: unknown } | null)?.method;
  return typeof method === 'string' && METHOD.test(method) ? method : 'other';
}

function commandOf(message: unknown): string | undefined {
  if (methodOf(message) !== 'tools/call') return undefined;
  const command = (message as { params?: { arguments?: { command?: unknown } } }).params?.arguments?.command;
  return typeof command === 'string' && METHOD.test(command) ? command : 'other';
}

/** The MCP endpoint as a door of `createMemdirServer` (`server.door('/mcp', mcpDoor(...))`). */
export function mcpDoor(options: McpDoorOptions): Door {
  const limits = { maxBatch: 100, maxDepth: 64, ...options.limits };
  return async (request, context) => {
    if (request.method !== 'POST') {
      // No sessions to end and no server-sent stream: this server never speaks first (MCP allows 405).
      context.record.refusal = 'method';
      return rpcError(405, -32000, 'Method not allowed', { allow: 'POST' });
    }
    const body = await readJsonBody(request, limits);
    if (!body.ok) {
      context.record.refusal = body.refusal;
      const [code, message] =
        body.refusal === 'bad-json'
          ? [-32700, 'Parse error: Invalid JSON']
          : [-32600, `Invalid request: ${body.refusal}`];
      return rpcError(body.status, code, message);
    }
    const messages: unknown[] = Array.isArray(body.value) ? body.value : [body.value];
    context.record.methods = messages.map(methodOf);
    const commands = messages.map(commandOf).filter((command) => command !== undefined);
    context.record.commands = commands;
    const release = context.charge(commands.length);
    if (release instanceof Response) return release;
    let server: Server | undefined;
    try {
      server = await options.server(context.grant);
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await server.connect(transport);
      // With JSON responses the transport resolves once every answer is in the body.
      return await transport.handleRequest(request, { parsedBody: body.value });
    } finally {
      release();
      void server?.close().catch(() => {});
    }
  };
}
