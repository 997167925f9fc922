// The MCP door: MCP's Streamable HTTP transport without server sessions. Each POST is answered by a
// fresh MCP server connected to a fresh transport, then both are dropped, so nothing a client needs
// lives in one process: N processes behind a round-robin balancer serve the same store, and a
// restarted or killed process loses no client. The body is bounded (size, depth, batch) before it is
// parsed, and the token is charged one call per `tools/call` it holds (a request holding none costs
// one). Clients that expect a session get a token-bound label any process can check
// (session-labels.ts). With `toolCaller`, a single `tools/call` takes a fast path past the SDK
// (mcp-fast-path.ts) that answers it with the same bytes.
import { MEMORY_COMMANDS } from '@memdir/core';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Door, DoorContext } from './app.js';
import type { TokenGrant } from './auth.js';
import { type BodyLimits, readJsonBody } from './body.js';
import { answerToolCall, fastToolCall, type ToolCaller } from './mcp-fast-path.js';
import type { SessionLabels } from './session-labels.js';

/** The options of `mcpDoor`. */
export interface McpDoorOptions {
  /**
   * Makes the MCP server of one request, for the token's grant (its namespace and mode). `context`
   * is the request's: its `record.outcomes` takes the outcome of each call, for the access log.
   */
  server: (grant: TokenGrant, context: DoorContext) => Server | Promise<Server>;
  /**
   * Bounds on the body. `maxBatch` defaults to 100, the MCP SDK's own cap, here enforced before
   * any work on the elements. @default { maxBytes: 10 MiB, maxDepth: 64, maxBatch: 100 }
   */
  limits?: BodyLimits;
  /**
   * The largest message answered, in bytes; a body between this and `limits.maxBytes` is not run.
   * A single `tools/call` that large gets `tooLarge(bytes)` as its result (a tool error the model
   * reads, as on stdio); anything else gets 413. @default `limits.maxBytes`
   */
  maxMessageBytes?: number;
  /** The result of a `tools/call` over `maxMessageBytes`. @default a 413 like any other message */
  tooLarge?: (bytes: number) => Record<string, unknown>;
  /** Session labels for clients that expect a session id. @default none: no `Mcp-Session-Id` is sent */
  sessions?: SessionLabels;
  /**
   * The fast path: makes the function answering the token's tool calls, as `server` makes its
   * server (it answers a call as that server's `tools/call` handler would). A single `tools/call`
   * is then answered without the SDK's per-request server and transport, with the same bytes
   * (mcp-fast-path.ts); every other request still goes to `server`. @default none: all go to `server`
   */
  toolCaller?: (grant: TokenGrant, context: DoorContext) => ToolCaller | Promise<ToolCaller>;
}

const METHOD = /^[A-Za-z0-9/_.-]{1,64}$/;

function rpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  id: unknown = null,
): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

function methodOf(message: unknown): string {
  const method = (message as { method?: unknown } | null)?.method;
  return typeof method === 'string' && METHOD.test(method) ? method : 'other';
}

/** The memory command of a `tools/call`: one of the tool's six, else `invalid` (never what a client made up). */
function commandOf(message: unknown): string | undefined {
  if (methodOf(message) !== 'tools/call') return undefined;
  const args = (message as { params?: { arguments?: unknown } }).params?.arguments;
  const command =
    typeof args === 'object' && args !== null ? (args as { command?: unknown }).command : undefined;
  return (MEMORY_COMMANDS as readonly unknown[]).includes(command) ? (command as string) : 'invalid';
}

/** The answer to a body over `maxMessageBytes`: the tool error for one `tools/call`, else 413. */
function tooLargeAnswer(value: unknown, bytes: number, options: McpDoorOptions, max: number): Response {
  const message = value as { id?: unknown; method?: unknown } | null;
  const id = typeof message?.id === 'string' || typeof message?.id === 'number' ? message.id : null;
  if (options.tooLarge !== undefined && methodOf(message) === 'tools/call' && id !== null) {
    return Response.json({ jsonrpc: '2.0', id, result: options.tooLarge(bytes) });
  }
  const text = `Request of ${bytes} bytes is larger than the ${max} bytes this server reads`;
  return rpcError(413, -32600, text, {}, id);
}

/** The MCP endpoint as a door of `createMemdirServer` (`server.door('/mcp', mcpDoor(...))`). */
export function mcpDoor(options: McpDoorOptions): Door {
  const limits = { maxBatch: 100, maxDepth: 64, ...options.limits };
  const sessions = options.sessions;
  return async (request, context) => {
    const label = request.headers.get('mcp-session-id');
    if (label !== null && (sessions === undefined || !sessions.check(label, context.grant))) {
      // Unknown, ended, or another token's: the client starts a new session (MCP's rule for 404).
      context.record.refusal = 'no-session';
      return rpcError(404, -32001, 'Session not found');
    }
    if (request.method === 'DELETE' && sessions !== undefined) {
      if (label === null) {
        context.record.refusal = 'no-session';
        return rpcError(400, -32000, 'Mcp-Session-Id header is required');
      }
      sessions.end(label);
      return new Response(null, { status: 200 });
    }
    if (request.method !== 'POST') {
      // No server-sent stream: this server never speaks first (MCP allows 405).
      context.record.refusal = 'method';
      return rpcError(405, -32000, 'Method not allowed', { allow: sessions ? 'POST, DELETE' : 'POST' });
    }
    // Every request costs one call before its body is read (a refused client costs no parse); a
    // batch pays for its other tool calls once they are counted.
    const releases: Array<() => void> = [];
    const charge = (calls: number): Response | undefined => {
      const charged = context.charge(calls);
      if (charged instanceof Response) return charged;
      releases.push(charged);
      return undefined;
    };
    try {
      return charge(1) ?? (await answer(request, context, charge, label === null ? undefined : label));
    } finally {
      for (const release of releases) release();
    }
  };

  /** The answer to a POST whose first call was charged. */
  async function answer(
    request: Request,
    context: DoorContext,
    charge: (calls: number) => Response | undefined,
    label: string | undefined,
  ): Promise<Response> {
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
    const maxMessageBytes = options.maxMessageBytes ?? Number.POSITIVE_INFINITY;
    if (body.bytes > maxMessageBytes) {
      context.record.refusal = 'too-large';
      return tooLargeAnswer(body.value, body.bytes, options, maxMessageBytes);
    }
    const commands = messages.map(commandOf).filter((command) => command !== undefined);
    context.record.commands = commands;
    if (commands.length > 1) {
      const refused = charge(commands.length - 1);
      if (refused !== undefined) return refused;
    }
    const toolCaller = options.toolCaller;
    const call = toolCaller === undefined ? undefined : fastToolCall(request, body.value);
    if (call !== undefined && toolCaller !== undefined) {
      return answerToolCall(call, await toolCaller(context.grant, context));
    }
    let server: Server | undefined;
    try {
      server = await options.server(context.grant, context);
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await server.connect(transport);
      // With JSON responses the transport resolves once every answer is in the body.
      const response = await transport.handleRequest(request, { parsedBody: body.value });
      const opens = messages.some((message) => methodOf(message) === 'initialize');
      if (sessions === undefined || label !== undefined || !opens || response.status !== 200) return response;
      const headers = new Headers(response.headers);
      headers.set('mcp-session-id', sessions.open(context.grant));
      return new Response(response.body, { status: response.status, headers });
    } finally {
      void server?.close().catch(() => {});
    }
  }
}
