// Request bodies of `memdir serve --http`, read with the same bound as a stdio line. A body over
// the bound is not kept: only its first and last few KB are, to answer a too-large `tools/call`
// with the same tool error as on stdio (the MCP SDK's client writes the id last). Past a hard
// ceiling the server stops reading altogether.
import type { IncomingMessage } from 'node:http';
import { OVERSIZED_KEEP_BYTES, type OversizedMessage, oversizedMessage } from './mcp-input.js';

/** What was read. */
export type BodyResult =
  | { kind: 'body'; text: string }
  /** Over the limit, read to its end: what could be told of it. */
  | { kind: 'too-large'; message: OversizedMessage }
  /** Over the ceiling (declared or seen): nothing more is read; answer 413 and close. */
  | { kind: 'refused'; bytes: number }
  /** The client went away before the body ended. */
  | { kind: 'aborted' };

/**
 * Reads `request`'s body: whole when it is at most `limit` bytes; over it, its ends only, up to
 * `ceiling` bytes read in all.
 */
export function readBody(request: IncomingMessage, limit: number, ceiling: number): Promise<BodyResult> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > ceiling) {
    return Promise.resolve({ kind: 'refused', bytes: declared });
  }
  return new Promise((resolve) => {
    let chunks: Buffer[] = [];
    let length = 0;
    let head: Buffer | undefined;
    let tail = Buffer.alloc(0);
    let settled = false;
    const settle = (result: BodyResult) => {
      if (settled) return;
      settled = true;
      request.off('data', onData);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      length += chunk.length;
      if (head === undefined) {
        chunks.push(chunk);
        if (length <= limit) return;
        const whole = Buffer.concat(chunks);
        chunks = [];
        head = Buffer.from(whole.subarray(0, OVERSIZED_KEEP_BYTES));
        tail = Buffer.from(whole.subarray(Math.max(0, whole.length - OVERSIZED_KEEP_BYTES)));
      } else {
        const joined = Buffer.concat([tail, chunk]);
        tail = Buffer.from(joined.subarray(Math.max(0, joined.length - OVERSIZED_KEEP_BYTES)));
      }
      if (length > ceiling) {
        request.pause();
        settle({ kind: 'refused', bytes: length });
      }
    };
    request.on('data', onData);
    request.once('end', () => {
      if (head === undefined) settle({ kind: 'body', text: Buffer.concat(chunks).toString('utf8') });
      else settle({ kind: 'too-large', message: oversizedMessage(head, tail, length) });
    });
    request.once('aborted', () => settle({ kind: 'aborted' }));
    request.once('error', () => settle({ kind: 'aborted' }));
    request.once('close', () => settle({ kind: 'aborted' }));
  });
}
