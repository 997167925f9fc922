// Reading a JSON body within bounds: its size (the declared length refused before any read, the
// stream cut at the limit) and its shape (depth, batch size: json-shape.ts), before `JSON.parse`.
import { checkJsonShape, type JsonShapeLimits } from './json-shape.js';

export interface BodyLimits extends JsonShapeLimits {
  /** The largest body read, in bytes. @default 10 MiB */
  maxBytes?: number;
}

export type JsonBody =
  | { ok: true; value: unknown; bytes: number }
  | {
      ok: false;
      refusal: 'too-large' | 'too-deep' | 'batch-too-large' | 'bad-json' | 'aborted';
      status: 400 | 413;
    };

/** Reads and parses `request`'s body as JSON, refusing what passes a bound before parsing it. */
export async function readJsonBody(request: Request, limits: BodyLimits = {}): Promise<JsonBody> {
  const maxBytes = limits.maxBytes ?? 10 * 1024 * 1024;
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > maxBytes) return { ok: false, refusal: 'too-large', status: 413 };
  if (request.headers.has('content-length')) {
    // A declared length is what the runtime reads (Node's parser cuts a body at it), so the body is
    // read whole, without a stream: a runtime's own reader (@hono/node-server's) skips the web
    // stream and its objects. The size is checked again once read.
    const read = await request.arrayBuffer().catch(() => undefined);
    if (read === undefined) return { ok: false, refusal: 'aborted', status: 400 };
    if (read.byteLength > maxBytes) return { ok: false, refusal: 'too-large', status: 413 };
    return parseJsonText(Buffer.from(read).toString('utf8'), read.byteLength, limits);
  }
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  if (request.body !== null) {
    const reader = request.body.getReader();
    for (;;) {
      // A body cut before its end (the client went away, or the runtime's request timeout cut it)
      // is a refusal like the others, not a server error.
      const read = await reader.read().catch(() => undefined);
      if (read === undefined) return { ok: false, refusal: 'aborted', status: 400 };
      const { done, value } = read;
      if (done) break;
      bytes += value.byteLength;
      if (bytes > maxBytes) {
        await reader.cancel().catch(() => {});
        return { ok: false, refusal: 'too-large', status: 413 };
      }
      chunks.push(value);
    }
  }
  return parseJsonText(Buffer.concat(chunks).toString('utf8'), bytes, limits);
}

/** Checks `text`'s shape, then parses it. */
function parseJsonText(text: string, bytes: number, limits: BodyLimits): JsonBody {
  const refusal = checkJsonShape(text, limits);
  if (refusal !== undefined) return { ok: false, refusal, status: 400 };
  try {
    return { ok: true, value: JSON.parse(text), bytes };
  } catch {
    return { ok: false, refusal: 'bad-json', status: 400 };
  }
}
