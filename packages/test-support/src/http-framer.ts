// HTTP/1.1 requests told apart in a client's bytes, so that fault-proxy.ts can answer the Nth
// request itself (`slow-down`) and pass the rest through untouched.
/** The part of a request head the proxy acts on. */
export interface RequestHead {
  method: string;
  /** The client waits for `100 Continue` before it sends the body. */
  expectContinue: boolean;
}

/** A run of bytes of one request; `head` is set on the piece that begins it. */
export interface RequestPiece {
  bytes: Buffer;
  head?: RequestHead;
  /** This piece completes its request. */
  last: boolean;
}

const HEAD_END = Buffer.from('\r\n\r\n');
const REQUEST_LINE = /^[A-Z]+ \S+ HTTP\/1\.[01]$/;

/**
 * Splits the bytes a client sends on one connection into HTTP/1.1 requests (Content-Length and
 * chunked bodies), so the proxy can tell the Nth request and answer it itself. A stream whose first
 * line is not a request line (Redis, PostgreSQL) comes back whole, as pieces of no request.
 */
export class HttpRequestFramer {
  /** Set once the first line is known: false for any other protocol. */
  http: boolean | undefined;
  private pendingHead: Buffer = Buffer.alloc(0);
  private state: 'head' | 'body' | 'chunk-size' | 'chunk-data' | 'trailer' = 'head';
  private remaining = 0;
  private line = '';

  push(chunk: Buffer): RequestPiece[] {
    if (this.http === false) return [{ bytes: chunk, last: false }];
    const pieces: RequestPiece[] = [];
    let offset = 0;
    let start = 0;
    const emit = (end: number, last: boolean) => {
      if (end > start || last) pieces.push({ bytes: chunk.subarray(start, end), last });
      start = end;
    };
    while (offset < chunk.length) {
      if (this.state === 'head') {
        const before = this.pendingHead.length;
        const pending = Buffer.concat([this.pendingHead, chunk.subarray(offset)]);
        if (this.http === undefined) {
          // Every request line starts with a method in capitals; Redis's RESP starts with '*' and
          // PostgreSQL's startup message with a zero byte, so most streams are told at once.
          const first = pending[0]!;
          if (first < 0x41 || first > 0x5a) {
            this.http = false;
            pieces.push({ bytes: pending, last: false });
            return pieces;
          }
          const lineEnd = pending.indexOf('\r\n');
          if (lineEnd < 0 && pending.length < 8192) {
            this.pendingHead = pending;
            return pieces;
          }
          this.http = lineEnd >= 0 && REQUEST_LINE.test(pending.subarray(0, lineEnd).toString('latin1'));
          if (!this.http) {
            this.pendingHead = Buffer.alloc(0);
            pieces.push({ bytes: pending, last: false });
            return pieces;
          }
        }
        const end = pending.indexOf(HEAD_END);
        if (end < 0) {
          this.pendingHead = pending;
          return pieces;
        }
        const headBytes = pending.subarray(0, end + HEAD_END.length);
        this.pendingHead = Buffer.alloc(0);
        offset += headBytes.length - before;
        start = offset;
        const head = parseHead(headBytes.toString('latin1'));
        if (head.chunked) {
          this.state = 'chunk-size';
          this.line = '';
        } else if (head.length > 0) {
          this.state = 'body';
          this.remaining = head.length;
        }
        pieces.push({ bytes: headBytes, head: head.head, last: this.state === 'head' });
        continue;
      }
      if (this.state === 'body' || this.state === 'chunk-data') {
        const take = Math.min(this.remaining, chunk.length - offset);
        offset += take;
        this.remaining -= take;
        if (this.remaining === 0) {
          if (this.state === 'body') {
            this.state = 'head';
            emit(offset, true);
          } else {
            this.state = 'chunk-size';
            this.line = '';
          }
        }
        continue;
      }
      // chunk-size and trailer lines: read up to the end of the line.
      const byte = chunk[offset++]!;
      if (byte !== 0x0a) {
        this.line += String.fromCharCode(byte);
        continue;
      }
      const line = this.line.replace(/\r$/, '');
      this.line = '';
      if (this.state === 'chunk-size') {
        const size = Number.parseInt(line.split(';')[0]!.trim(), 16);
        if (size > 0) {
          this.state = 'chunk-data';
          this.remaining = size + 2; // the data, then its CRLF
        } else {
          this.state = 'trailer';
        }
      } else if (line === '') {
        this.state = 'head';
        emit(offset, true);
      }
    }
    emit(offset, false);
    return pieces;
  }
}

function parseHead(text: string): { head: RequestHead; length: number; chunked: boolean } {
  const [requestLine = '', ...lines] = text.split('\r\n');
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return {
    head: {
      method: requestLine.split(' ')[0] ?? '',
      expectContinue: (headers.get('expect') ?? '').toLowerCase() === '100-continue',
    },
    length: Number(headers.get('content-length') ?? 0) || 0,
    chunked: (headers.get('transfer-encoding') ?? '').toLowerCase().includes('chunked'),
  };
}
