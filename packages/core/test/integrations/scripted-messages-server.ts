// A scripted stand-in for the Anthropic Messages API on 127.0.0.1, for testing agent integrations with
// the real client libraries and no network. Each POST to `.../v1/messages` is recorded and answered with
// the next scripted assistant turn, as a complete (non-streaming) Message. The Anthropic SDK talks to it
// with `baseURL: server.url`, the AI SDK's provider with `baseURL: server.url + '/v1'`.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A content block of a scripted assistant turn (text or tool_use, as the API sends them). */
export type AssistantBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown };

/** One request the client sent. */
export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/v1/messages?beta=true`. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as received. */
  raw: string;
  /** The body parsed as JSON. */
  body: {
    stream?: boolean;
    messages: Array<{ role: string; content: string | Array<Record<string, unknown>> }>;
    tools?: Array<Record<string, unknown>>;
    [field: string]: unknown;
  };
}

export interface ScriptedMessagesServer {
  /** `http://127.0.0.1:{port}`, without a trailing slash. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Queues assistant turns; each request to the Messages endpoint takes the next one. */
  script(...turns: AssistantBlock[][]): void;
  /** How many scripted turns no request has taken yet. */
  readonly pending: number;
  /** Whether the server still accepts connections. */
  readonly listening: boolean;
  /** Stops listening and closes every open connection (keep-alive ones included). */
  close(): Promise<void>;
}

/** A `tool_use` block for the memory tool. */
export function memoryCall(id: string, input: Record<string, unknown>): AssistantBlock {
  return { type: 'tool_use', id, name: 'memory', input };
}

/** The `tool_result` blocks of the last user message of a request: what the client sent back. */
export function toolResultsOf(request: RecordedRequest): Array<Record<string, unknown>> {
  const last = request.body.messages.at(-1);
  if (last === undefined || last.role !== 'user' || typeof last.content === 'string') return [];
  return last.content.filter((block) => block['type'] === 'tool_result');
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'request-id': `req_scripted_${status}`,
  });
  response.end(text);
}

function apiError(response: ServerResponse, status: number, type: string, message: string): void {
  sendJson(response, status, { type: 'error', error: { type, message } });
}

/** Starts a scripted Messages API server on a random port of 127.0.0.1. */
export async function startScriptedMessagesServer(): Promise<ScriptedMessagesServer> {
  const turns: AssistantBlock[][] = [];
  const requests: RecordedRequest[] = [];
  let replies = 0;

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = (request.url ?? '').split('?')[0] ?? '';
      if (request.method !== 'POST' || !path.endsWith('/v1/messages')) {
        apiError(response, 404, 'not_found_error', `The scripted server has no ${request.method} ${path}`);
        return;
      }
      let body: RecordedRequest['body'];
      try {
        body = JSON.parse(raw) as RecordedRequest['body'];
      } catch {
        apiError(response, 400, 'invalid_request_error', 'The request body is not JSON');
        return;
      }
      requests.push({ method: request.method, url: request.url ?? '', headers: request.headers, raw, body });
      if (body.stream === true) {
        apiError(
          response,
          400,
          'invalid_request_error',
          'The scripted server answers non-streaming requests only',
        );
        return;
      }
      const content = turns.shift();
      if (content === undefined) {
        apiError(response, 500, 'api_error', 'The scripted server has no turn left for this request');
        return;
      }
      replies += 1;
      sendJson(response, 200, {
        id: `msg_scripted_${String(replies).padStart(2, '0')}`,
        type: 'message',
        role: 'assistant',
        model: typeof body['model'] === 'string' ? body['model'] : 'claude-scripted',
        content,
        stop_reason: content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 10 },
      });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script(...scripted) {
      turns.push(...scripted);
    },
    get pending() {
      return turns.length;
    },
    get listening() {
      return server.listening;
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
