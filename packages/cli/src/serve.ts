import { MEMORY_COMMANDS, type MemoryStore } from '@memdir/core';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { EXIT_OK, errorText } from './errors.js';
import { type CliIo, write } from './io.js';
import { VERSION } from './version.js';

/** The name of the one tool `memdir serve` exposes. */
export const MEMORY_TOOL_NAME = 'memory';

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

/**
 * An MCP server (not yet connected) exposing `store` as one tool, `memory`. Each call's result is
 * the store's text; a failure is an `isError` result with the text `"Error: " + message` (SPEC
 * section 7). Calls run one after another in the order they arrive, as the model issued them, so a
 * `create` followed by a `str_replace` in one turn always works.
 */
export function createMcpServer(store: MemoryStore): Server {
  return buildServer(store).server;
}

/** The server, and a promise for the end of the calls queued so far. */
function buildServer(store: MemoryStore): { server: Server; drain: () => Promise<unknown> } {
  const server = new Server({ name: 'memdir', version: VERSION }, { capabilities: { tools: {} } });
  let queue: Promise<unknown> = Promise.resolve();

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      {
        name: MEMORY_TOOL_NAME,
        description: MEMORY_TOOL_DESCRIPTION,
        inputSchema: MEMORY_TOOL_INPUT_SCHEMA as unknown as { type: 'object' },
      },
    ],
  }));

  server.setRequestHandler(CallToolRequestSchema, (request): Promise<CallToolResult> => {
    const { name, arguments: input } = request.params;
    const call = queue.then(async (): Promise<CallToolResult> => {
      if (name !== MEMORY_TOOL_NAME) return failure(`Unknown tool ${name}: this server has only "memory"`);
      try {
        return { content: [{ type: 'text', text: await store.execute(input ?? {}) }] };
      } catch (error) {
        return failure(errorText(error));
      }
    });
    queue = call.catch(() => {});
    return call;
  });
  return { server, drain: () => queue };
}

function failure(message: string): CallToolResult {
  return { content: [{ type: 'text', text: `Error: ${message}` }], isError: true };
}

/**
 * `memdir serve`: serves `store` over MCP on `io.stdin`/`io.stdout` until stdin ends or the process
 * is told to stop. Nothing but protocol messages goes to stdout; the one log line goes to stderr.
 */
export async function serveStdio(store: MemoryStore, io: CliIo, storeLabel: string): Promise<number> {
  const { server, drain } = buildServer(store);
  const transport = new StdioServerTransport(io.stdin, io.stdout);
  const stopped = new Promise<void>((resolve) => {
    io.stdin.once('end', resolve);
    io.stdin.once('close', resolve);
    transport.onclose = resolve;
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.connect(transport);
  await write(io.stderr, `memdir: serving ${storeLabel} over MCP on stdio (tool "memory")\n`);
  await stopped;
  // Answer the calls already received before closing (a client may close stdin right after them).
  await drain();
  await server.close().catch(() => {});
  return EXIT_OK;
}
