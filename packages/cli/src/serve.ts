// `memdir serve`: the memory tool over MCP on stdio, one store for one client; `createMcpServer`
// is the tool's MCP server, which serve-http.ts also gives each HTTP session.
import {
  type Actor,
  MEMORY_COMMANDS,
  type MemoryStore,
  mcpCallTool,
  mcpRequestTooLarge,
  runInOrder,
} from '@memdir/core';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import {
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { EXIT_OK } from './errors.js';
import { type CliIo, write } from './io.js';
import { MessageSizeGuard, type OversizedMessage } from './mcp-input.js';
import { VERSION } from './version.js';

/** The name of the one tool `memdir serve` exposes. */
export const MEMORY_TOOL_NAME = 'memory';

/**
 * The largest message `memdir serve` reads or sends, in bytes: the MCP SDK's stdio limit, which its
 * clients apply too. A larger request is answered with an error and the server goes on serving.
 */
export const MAX_MCP_MESSAGE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

/**
 * What the model reads about the tool. Claude's API-side memory tool carries its own description;
 * over MCP the server must give one, so this says what each command does, briefly.
 */
export const MEMORY_TOOL_DESCRIPTION = [
  'Persistent memory: a directory of text files under /memories that survives across conversations.',
  'Check it at the start of a task and record progress, decisions and facts worth keeping as you work.',
  'Commands: view (a directory listing, or a file with line numbers; view_range [start, end] for some lines),',
  'create (write file_text to path, creating directories), str_replace (replace the unique old_str with new_str),',
  'insert (insert_text after line insert_line, 0 for the top), delete (a file or directory),',
  'rename (old_path to new_path). Every path starts with /memories.',
].join(' ');

/** The JSON schema of the tool's input: the six commands of `memory_20250818` (SPEC section 1). */
export const MEMORY_TOOL_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    command: { type: 'string', enum: [...MEMORY_COMMANDS], description: 'The operation to perform.' },
    path: {
      type: 'string',
      description:
        'The file or directory, starting with /memories (view, create, str_replace, insert, delete).',
    },
    view_range: {
      type: 'array',
      items: { type: 'integer' },
      minItems: 2,
      maxItems: 2,
      description: 'view: [start, end] lines to show, 1-based and inclusive; end -1 reads to the end.',
    },
    file_text: { type: 'string', description: 'create: the content of the file.' },
    old_str: { type: 'string', description: 'str_replace: the text to replace; must occur exactly once.' },
    new_str: { type: 'string', description: 'str_replace: the replacement; omit it to delete old_str.' },
    insert_line: { type: 'integer', description: 'insert: the line to insert after; 0 inserts at the top.' },
    insert_text: { type: 'string', description: 'insert: the text to insert.' },
    old_path: { type: 'string', description: 'rename: the file or directory to move.' },
    new_path: { type: 'string', description: 'rename: where to move it.' },
  },
  required: ['command'],
} as const;

// The longest actor id and tool use id a store records (core's limit); a longer client name or
// request id is cut, not refused: it only labels the change.
const MAX_ID_CHARS = 256;

/** C0 and C1 controls, DEL and bidirectional controls: what core refuses in actor and tool use ids. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * An id a client chose (its name, a JSON-RPC request id) as history may keep it: each control
 * character written as `\uXXXX`, at most 256 characters. Core refuses control characters in
 * actors and tool use ids (an operator's terminal shows them); a client's odd name still works.
 */
function clientId(text: string): string {
  return text
    .replace(CONTROL, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .slice(0, MAX_ID_CHARS);
}

// A result is wrapped in JSON-RPC and escaped as JSON on the way out: leave room for both.
const MAX_RESULT_BYTES = Math.floor(MAX_MCP_MESSAGE_BYTES / 2);

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /**
   * Who every call is attributed to; a function is asked at each call (after the client said who it
   * is). Each call also passes its MCP request id as the `toolUseId`.
   * @default the MCP client's name from its `initialize` request, as a `session` actor
   */
  actor?: Actor | (() => Actor) | undefined;
}

let sharedValidator: AjvJsonSchemaValidator | undefined;

/**
 * An MCP server (not yet connected) exposing `store` as one tool, `memory`. Each call goes through
 * core's integration layer (`mcpCallTool`): the result is the store's text; a failure is an
 * `isError` result with the text `"Error: " + message` (SPEC section 7), a store's raw error never
 * reaching the model; calls run one after another in the order they arrive, as the model issued
 * them, in the same queue as every other integration over the same store object.
 *
 * `tools/call` is answered without the MCP SDK's own check of its params: that check refuses
 * `arguments` that are not an object with a JSON-RPC error the model never reads (a zod dump);
 * here they reach the engine, whose `INVALID_INPUT` text comes back as a tool error, as for any
 * other bad input (SPEC section 7).
 */
export function createMcpServer(store: MemoryStore, options: McpServerOptions = {}): Server {
  // One JSON Schema validator for every server: the SDK would build an Ajv per server otherwise, and
  // `serve --http` makes a server per request (a fifth of its CPU went to building them).
  sharedValidator ??= new AjvJsonSchemaValidator();
  const server = new Server(
    { name: 'memdir', version: VERSION },
    { capabilities: { tools: {} }, jsonSchemaValidator: sharedValidator },
  );
  const actorOf =
    typeof options.actor === 'function'
      ? options.actor
      : options.actor !== undefined
        ? () => options.actor as Actor
        : (): Actor => ({
            type: 'session',
            id: clientId(server.getClientVersion()?.name ?? '') || 'mcp-client',
          });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      {
        name: MEMORY_TOOL_NAME,
        description: MEMORY_TOOL_DESCRIPTION,
        inputSchema: MEMORY_TOOL_INPUT_SCHEMA as unknown as { type: 'object' },
      },
    ],
  }));
  // The fallback handler gets the request as it came (the SDK validates only requests that have a
  // handler of their own); every method but tools/call is unknown here.
  server.fallbackRequestHandler = async (request, extra): Promise<CallToolResult> => {
    if (request.method !== 'tools/call') throw new McpError(ErrorCode.MethodNotFound, 'Method not found');
    const params = request.params as Record<string, unknown> | undefined;
    if (typeof params?.['name'] !== 'string') {
      throw new McpError(ErrorCode.InvalidParams, 'tools/call needs params.name, a string');
    }
    return callMemoryTool(
      store,
      { name: params['name'], arguments: params['arguments'], id: extra.requestId },
      actorOf(),
      extra.signal,
    );
  };
  return server;
}

/**
 * Answers one `tools/call` of the memory tool on `store` for `actor`, as the server of
 * `createMcpServer` does: `serve --http`'s fast path answers a single call with it, past the SDK.
 */
export function callMemoryTool(
  store: MemoryStore,
  call: { name: string; arguments: unknown; id: string | number },
  actor: Actor,
  signal?: AbortSignal,
): Promise<CallToolResult> {
  return mcpCallTool(store, call.name, call.arguments, {
    toolName: MEMORY_TOOL_NAME,
    maxResultBytes: MAX_RESULT_BYTES,
    signal,
    actor,
    toolUseId: clientId(String(call.id)),
  });
}

/**
 * `memdir serve`: serves `store` over MCP on `io.stdin`/`io.stdout` until stdin ends or the process
 * is told to stop. Nothing but protocol messages goes to stdout; log lines go to stderr.
 */
export async function serveStdio(store: MemoryStore, io: CliIo, storeLabel: string): Promise<number> {
  const server = createMcpServer(store);
  const guard = new MessageSizeGuard(MAX_MCP_MESSAGE_BYTES, (message) => {
    void answerOversized(transport, message, io);
  });
  io.stdin.pipe(guard);
  // The guard hands over one line at a time, each within the limit: the transport's own buffer
  // (which closes the transport when it overflows) never fills.
  const transport = new StdioServerTransport(guard, io.stdout, { maxBufferSize: MAX_MCP_MESSAGE_BYTES * 2 });
  const stopped = new Promise<void>((resolve) => {
    io.stdin.once('end', resolve);
    guard.once('end', resolve);
    io.stdin.once('close', resolve);
    transport.onclose = resolve;
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.connect(transport);
  await write(io.stderr, `memdir: serving ${storeLabel} over MCP on stdio (tool "memory")\n`);
  await stopped;
  // Answer the calls already received before closing (a client may close stdin right after them).
  await runInOrder(store, async () => {});
  await server.close().catch(() => {});
  return EXIT_OK;
}

/** Answers a request that was too large to read, when its id could be found; logs it either way. */
async function answerOversized(
  transport: StdioServerTransport,
  message: OversizedMessage,
  io: CliIo,
): Promise<void> {
  await write(
    io.stderr,
    `memdir: refused a ${message.bytes}-byte message (${message.method ?? 'unknown method'}): over ${MAX_MCP_MESSAGE_BYTES} bytes\n`,
  );
  if (message.id === undefined) return;
  if (message.method === 'tools/call') {
    const result = mcpRequestTooLarge(message.bytes, MAX_MCP_MESSAGE_BYTES);
    await transport.send({ jsonrpc: '2.0', id: message.id, result });
    return;
  }
  await transport.send({
    jsonrpc: '2.0',
    id: message.id,
    error: {
      code: ErrorCode.InvalidRequest,
      message: `Request of ${message.bytes} bytes is larger than the ${MAX_MCP_MESSAGE_BYTES} bytes this server reads`,
    },
  });
}
