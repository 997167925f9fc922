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
  const text = Buffer.concat(chunks).toString('utf8');
  const refusal = checkJsonShape(text, limits);
  if (refusal !== undefined) return { ok: false, refusal, status: 400 };
  try {
    return { ok: true, value: JSON.parse(text), bytes };
  } catch {
    return { ok: false, refusal: 'bad-json', status: 400 };
  }
}
