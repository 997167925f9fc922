// What is listening at an address, when a driver's client fails to talk to it: a store URL with the
// wrong port reaches another server, and the client library then says something of its own parser
// ("Unknown RESP type 72", "socket hang up", "Connection terminated unexpectedly") that names
// neither the server it found nor the fix. Only asked after a connection failed, once: two small
// probes, each on a connection of its own, that every one of these servers answers in its way.
import { connect } from 'node:net';
import { MemoryToolError } from '../errors.js';
import { storeMisconfigured } from '../messages.js';

/** The servers a probe recognises, or `silent`: it took the connection and said nothing. */
export type ProbedServer = 'HTTP' | 'Redis' | 'PostgreSQL' | 'silent';

/**
 * Redis answers `PING` with `+PONG` (or `-NOAUTH`...); an HTTP server answers a request line it
 * cannot parse with `HTTP/1.1 400`; PostgreSQL closes the connection on it without a byte.
 */
const PING = Buffer.from('PING\r\n');
/** PostgreSQL's SSLRequest: it answers a single `S` or `N`; Redis waits for the end of the line. */
const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 4, 210, 22, 47]);

/** What one probe heard: the first bytes, `closed` without any, or nothing before the wait ended. */
type Heard = { bytes: string } | 'closed' | 'nothing' | 'unreachable';

function probe(host: string, port: number, payload: Buffer, waitMs: number): Promise<Heard> {
  return new Promise((resolve) => {
    let connected = false;
    const done = (heard: Heard) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(heard);
    };
    const socket = connect({ host, port }, () => {
      connected = true;
      socket.write(payload);
    });
    const timer = setTimeout(() => done(connected ? 'nothing' : 'unreachable'), waitMs);
    socket.on('data', (data: Buffer) => done({ bytes: data.toString('latin1', 0, 16) }));
    socket.on('close', () => done(connected ? 'closed' : 'unreachable'));
    socket.on('error', () => done(connected ? 'closed' : 'unreachable'));
  });
}

function serverOf(heard: Heard): ProbedServer | undefined {
  if (typeof heard !== 'object') return undefined;
  if (heard.bytes.startsWith('HTTP/')) return 'HTTP';
  if (heard.bytes === 'S' || heard.bytes === 'N') return 'PostgreSQL';
  if (/^[+-]/.test(heard.bytes)) return 'Redis';
  return undefined;
}

/**
 * Which kind of server listens at `host:port` (plain TCP), or `undefined` when neither probe tells:
 * nothing listens, the connection was closed without a word, or the answer is of another kind.
 * Never rejects; takes at most `waitMs`.
 */
export async function probeServer(
  host: string,
  port: number,
  waitMs = 1_000,
): Promise<ProbedServer | undefined> {
  const heard = await Promise.all([probe(host, port, PING, waitMs), probe(host, port, SSL_REQUEST, waitMs)]);
  for (const server of ['PostgreSQL', 'Redis', 'HTTP'] as const) {
    if (heard.some((each) => serverOf(each) === server)) return server;
  }
  return heard.every((each) => each === 'nothing') ? 'silent' : undefined;
}

/**
 * The `BACKEND` error (reason `misconfigured`) for a store URL that reaches a server of another
 * kind: `the server found speaks HTTP, not Redis; check the port`. The same sentence is
 * the cause's message, which is what the CLI prints for operators.
 *
 * @param expected what the store talks to (`Redis`, `PostgreSQL`, `S3 (HTTP)`)
 * @param place what to check, as the user wrote it (`the port`, `the endpoint's port`)
 */
export function wrongServer(expected: string, found: ProbedServer, place = 'the port'): MemoryToolError {
  const detail =
    found === 'silent'
      ? `the server found accepted the connection but never answered, as ${expected} would; check ${place}`
      : `the server found speaks ${found}, not ${expected}; check ${place}`;
  return new MemoryToolError('BACKEND', storeMisconfigured(detail), {
    cause: new Error(detail),
    reason: 'misconfigured',
    outcome: 'not-applied',
  });
}

/**
 * `work`, unless it has not settled after `afterMs` and `probe` (then started) finds first that the
 * address holds another kind of server: then the error `probe` gives. A server that takes a
 * connection and stays silent (Redis reading a PostgreSQL handshake) would otherwise be reported
 * only as a timeout at the deadline. `work` settling after that is handed to `late`.
 */
export function raceServerProbe<T>(
  work: Promise<T>,
  probe: () => Promise<MemoryToolError | undefined>,
  afterMs: number,
  late: (work: Promise<T>) => void,
): Promise<T> {
  let settled = false;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      void probe().then((error) => {
        if (error === undefined || settled) return;
        settled = true;
        late(work);
        reject(error);
      });
    }, afterMs);
    work.then(
      (value) => {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        reject(error);
      },
    );
  });
}
