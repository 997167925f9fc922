// The MCP door's fast path: a single JSON-RPC `tools/call`, answered without the MCP SDK's
// per-request server and transport. It takes only a message the SDK's stateless Streamable HTTP
// transport (JSON responses) would accept as it is (the same header checks, the same strict
// JSON-RPC request shape) and writes the bytes that transport would write: status 200,
// `content-type: application/json`, `{"result":...,"jsonrpc":"2.0","id":...}`, or the SDK's error
// object when the call throws. Anything else, valid or not, goes to the SDK, which answers it.
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';

/** One `tools/call` as the fast path hands it over. */
export interface ToolCall {
  /** `params.name`. */
  readonly name: string;
  /** `params.arguments`, as sent (possibly `undefined`). */
  readonly arguments: unknown;
  /** The JSON-RPC request id. */
  readonly id: string | number;
}

/** Answers one tool call with its `CallToolResult`; a throw becomes a JSON-RPC error, as in the SDK. */
export type ToolCaller = (call: ToolCall) => Promise<unknown>;

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The call in `message` when the fast path may answer it: the request's headers pass the SDK's
 * checks (Accept, Content-Type, MCP-Protocol-Version) and `message` is exactly a JSON-RPC request
 * of `tools/call` with a string `params.name` and neither `_meta` nor `task` (which the SDK gives
 * meaning to). `undefined` sends the request to the SDK.
 */
export function fastToolCall(request: Request, message: unknown): ToolCall | undefined {
  if (!isPlainObject(message) || message['method'] !== 'tools/call' || message['jsonrpc'] !== '2.0') {
    return undefined;
  }
  for (const key in message) if (!REQUEST_KEYS.has(key)) return undefined;
  const id = message['id'];
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  const params = message['params'];
  if (!isPlainObject(params) || typeof params['name'] !== 'string') return undefined;
  if ('_meta' in params || 'task' in params) return undefined;
  const headers = request.headers;
  const accept = headers.get('accept');
  if (accept === null || !accept.includes('application/json') || !accept.includes('text/event-stream')) {
    return undefined;
  }
  if (headers.get('content-type') !== 'application/json') return undefined;
  const version = headers.get('mcp-protocol-version');
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  return { name: params['name'], arguments: params['arguments'], id: id as string | number };
}

/** The response the SDK's transport writes for `call`, answered by `caller`. */
export async function answerToolCall(call: ToolCall, caller: ToolCaller): Promise<Response> {
  let answer: Record<string, unknown>;
  try {
    answer = { result: await caller(call), jsonrpc: '2.0', id: call.id };
  } catch (thrown) {
    // The SDK's error response (shared/protocol.js): the error's own code when it is an integer.
    const error = thrown as { code?: unknown; message?: unknown; data?: unknown } | undefined;
    answer = {
      jsonrpc: '2.0',
      id: call.id,
      error: {
        code: Number.isSafeInteger(error?.code) ? error?.code : -32603,
        message: error?.message ?? 'Internal error',
        ...(error?.data !== undefined && { data: error.data }),
      },
    };
  }
  return new Response(JSON.stringify(answer), {
    status: 200,
    headers: { 'content-type': 'application/json' },
  });
}
