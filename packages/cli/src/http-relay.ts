// Between Node's HTTP server and the MCP SDK's web-standard Streamable HTTP transport, for requests
// whose body `memdir serve --http` has already read and checked.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';

/**
 * Hands a request whose body was already read to the MCP SDK's transport and streams its answer
 * back. The transport answers a POST with a short event stream that ends once every response of the
 * request is sent. (Its JSON answers are not used: in SDK 1.x each one leaves an entry behind in the
 * transport for the life of the session, typescript-sdk#2559, which a long session turns into a
 * leak.)
 */
export async function relay(
  transport: WebStandardStreamableHTTPServerTransport,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  parsedBody?: unknown,
): Promise<void> {
  const headers = new Headers();
  const raw = request.rawHeaders;
  for (let index = 0; index < raw.length; index += 2) headers.append(raw[index]!, raw[index + 1]!);
  const answer = await transport.handleRequest(
    new Request(`http://localhost${path}`, { method: request.method, headers }),
    { parsedBody },
  );
  const out: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    out[name] = value;
  });
  response.writeHead(answer.status, out);
  if (answer.body === null) {
    response.end();
    return;
  }
  const reader = answer.body.getReader();
  // A client that goes away cancels the stream, which releases the request in the transport.
  const cancel = () => void reader.cancel().catch(() => {});
  response.once('close', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!response.write(value)) {
        await new Promise((resolve) => {
          response.once('drain', resolve);
          response.once('close', resolve);
        });
      }
    }
    response.end();
  } catch {
    response.destroy();
  }
}

/** A JSON-RPC error body, as the MCP SDK's transport writes its own. */
export function rpcError(code: number, message: string, id: string | number | null = null): string {
  return JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id });
}
