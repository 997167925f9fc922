// The MCP SDK's stdio transport reads one JSON-RPC message per line and gives up on a line longer
// than its buffer (10 MiB): it closes the transport, and the server stops answering anything. Tool
// inputs come from a model, so a `create` with 11 MB of text must not take the server down. This
// stream sits between stdin and the transport: lines within the limit pass as they are; a longer
// line is dropped (only its first and last few KB are kept, to find its id and method), reported
// through `onOversized`, and the stream goes on with the next line.
import { Transform, type TransformCallback } from 'node:stream';

/** What is known of a message that was too large to read. */
export interface OversizedMessage {
  /** The message's length in bytes (without its newline). */
  bytes: number;
  /** The JSON-RPC id, when it could be found at either end of the message. */
  id: number | string | undefined;
  /** The JSON-RPC method, when it could be found. */
  method: string | undefined;
}

const KEEP = 4096;
const ID = String.raw`"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")`;
const ID_AT_START = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?${ID}`);
const ID_AT_END = new RegExp(String.raw`${ID}\s*\}\s*$`);
const METHOD = /"method"\s*:\s*"([^"\\]{1,64})"/;

function parseId(match: RegExpExecArray | null): number | string | undefined {
  if (!match) return undefined;
  const value = JSON.parse(match[1]!) as number | string;
  return value;
}

/**
 * What can be told of a message of `bytes` bytes too large to read, from its first and last few KB
 * (the id is looked for at both ends: the MCP SDK's client writes it last). Used for stdio lines and
 * HTTP bodies alike.
 */
export function oversizedMessage(head: Buffer, tail: Buffer, bytes: number): OversizedMessage {
  const start = head.subarray(0, KEEP).toString('utf8');
  const end = tail.subarray(Math.max(0, tail.length - KEEP)).toString('utf8');
  let id: number | string | undefined;
  try {
    id = parseId(ID_AT_START.exec(start)) ?? parseId(ID_AT_END.exec(end));
  } catch {
    id = undefined;
  }
  return { bytes, id, method: METHOD.exec(start)?.[1] ?? METHOD.exec(end)?.[1] };
}

/** How much of each end of an oversized message {@link oversizedMessage} looks at. */
export const OVERSIZED_KEEP_BYTES = KEEP;

/** Splits stdin into lines of at most `maxBytes`, diverting longer ones to `onOversized`. */
export class MessageSizeGuard extends Transform {
  readonly #maxBytes: number;
  readonly #onOversized: (message: OversizedMessage) => void;
  /** The pieces of the current line (only while it is within the limit). */
  #pieces: Buffer[] = [];
  #length = 0;
  /** Set once the current line went over the limit: its head, its rolling tail. */
  #overflow: { head: Buffer; tail: Buffer } | undefined;

  constructor(maxBytes: number, onOversized: (message: OversizedMessage) => void) {
    super();
    this.#maxBytes = maxBytes;
    this.#onOversized = onOversized;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      this.#take(chunk.subarray(start, newline));
      this.#endLine();
      start = newline + 1;
    }
    if (start < chunk.length) this.#take(chunk.subarray(start));
    callback();
  }

  override _flush(callback: TransformCallback): void {
    if (this.#length > 0 || this.#overflow) this.#endLine();
    callback();
  }

  #take(piece: Buffer): void {
    if (piece.length === 0) return;
    this.#length += piece.length;
    if (this.#overflow) {
      const tail = Buffer.concat([this.#overflow.tail, piece]);
      this.#overflow.tail = tail.subarray(Math.max(0, tail.length - KEEP));
      return;
    }
    this.#pieces.push(piece);
    if (this.#length > this.#maxBytes) {
      const line = Buffer.concat(this.#pieces);
      this.#pieces = [];
      this.#overflow = { head: line.subarray(0, KEEP), tail: Buffer.from(line.subarray(line.length - KEEP)) };
    }
  }

  #endLine(): void {
    if (this.#overflow) {
      this.#onOversized(oversizedMessage(this.#overflow.head, this.#overflow.tail, this.#length));
    } else {
      this.#pieces.push(Buffer.from('\n'));
      this.push(Buffer.concat(this.#pieces));
    }
    this.#pieces = [];
    this.#length = 0;
    this.#overflow = undefined;
  }
}
