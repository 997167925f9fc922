// The parts of `memdir serve --http` that need no server: the address flag, the tokens file, the
// rate and in-flight caps, the access log line.
import { describe, expect, it } from 'vitest';
import { accessLine, commandLabel, methodLabel } from '../src/access-log.js';
import { InFlight, RateLimiter } from '../src/http-limits.js';
import {
  httpServeConfig,
  isLoopback,
  parseHttpAddress,
  withDefaultHttpAddress,
} from '../src/serve-http-options.js';
import { generateToken, hashToken, parseTokensFile, TokenTable } from '../src/tokens.js';

describe('--http HOST:PORT', () => {
  it.each([
    ['127.0.0.1:8787', '127.0.0.1', 8787],
    ['0.0.0.0:0', '0.0.0.0', 0],
    ['[::1]:9000', '::1', 9000],
    ['localhost:80', 'localhost', 80],
    [':8787', '127.0.0.1', 8787],
    ['8787', '127.0.0.1', 8787],
  ])('%s', (value, host, port) => {
    expect(parseHttpAddress(value)).toEqual({ host, port });
  });

  it.each(['127.0.0.1', 'a:b:1', '[nothex]:80', 'host:65536', 'host:-1', ''])('%j is refused', (value) => {
    expect(() => parseHttpAddress(value)).toThrow(/--http expects HOST:PORT/);
  });

  it('--http without a value takes 127.0.0.1:8787', () => {
    expect(withDefaultHttpAddress(['--http', '--store', 'memory:'])).toEqual([
      '--http',
      '127.0.0.1:8787',
      '--store',
      'memory:',
    ]);
    expect(withDefaultHttpAddress(['--store', 'memory:', '--http'])).toEqual([
      '--store',
      'memory:',
      '--http',
      '127.0.0.1:8787',
    ]);
    expect(withDefaultHttpAddress(['--http', '0.0.0.0:1'])).toEqual(['--http', '0.0.0.0:1']);
  });

  it('loopback is 127.0.0.0/8, ::1 and localhost; anything else warns', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', 'localhost']) expect(isLoopback(host)).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.5', 'example.com'])
      expect(isLoopback(host)).toBe(false);
  });
});

describe('the flags of the Host/Origin check, the connections and the quota', () => {
  const config = (values: Record<string, unknown>) =>
    httpServeConfig({ http: '127.0.0.1:0', ...values }, '/srv/tokens.json');

  it('by default: any Host, no Origin, 512 connections, 10 s for headers, 120 s a request, 30 s a write, no quota', () => {
    const {
      allowedHosts,
      allowedOrigins,
      maxConnections,
      headersTimeoutMs,
      requestTimeoutMs,
      writeTimeoutMs,
      quota,
    } = config({});
    expect({
      allowedHosts,
      allowedOrigins,
      maxConnections,
      headersTimeoutMs,
      requestTimeoutMs,
      writeTimeoutMs,
      quota,
    }).toEqual({
      allowedHosts: [],
      allowedOrigins: [],
      maxConnections: 512,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 120_000,
      writeTimeoutMs: 30_000,
      quota: undefined,
    });
  });

  it('--allowed-host and --allowed-origin repeat, and are kept as given', () => {
    const parsed = config({
      'allowed-host': [
        'memory.example.com',
        'Memory.Example.com:8443',
        '127.0.0.1:8787',
        '[::1]:8787',
        'localhost',
      ],
      'allowed-origin': ['https://app.example.com', 'http://localhost:5173'],
    });
    expect(parsed.allowedHosts).toEqual([
      'memory.example.com',
      'Memory.Example.com:8443',
      '127.0.0.1:8787',
      '[::1]:8787',
      'localhost',
    ]);
    expect(parsed.allowedOrigins).toEqual(['https://app.example.com', 'http://localhost:5173']);
  });

  it.each([
    'https://memory.example.com',
    'memory.example.com/mcp',
    'memory.example.com:99999',
    '[nothex]:80',
    '',
    'a b',
    '-x.example.com',
    '*',
  ])('--allowed-host %j is refused', (host) => {
    expect(() => config({ 'allowed-host': [host] })).toThrow(
      `serve: --allowed-host expects a host name as clients send it in Host (memory.example.com, memory.example.com:8443, [::1]:8787), got ${JSON.stringify(host)}`,
    );
  });

  it.each([
    ['https://app.example.com/', ' (did you mean "https://app.example.com"?)'],
    ['https://App.Example.com', ' (did you mean "https://app.example.com"?)'],
    ['https://app.example.com:443', ' (did you mean "https://app.example.com"?)'],
    ['https://app.example.com/path', ' (did you mean "https://app.example.com"?)'],
    ['app.example.com', ''],
    ['file:///etc', ''],
    ['*', ''],
    ['null', ''],
  ])('--allowed-origin %j is refused', (origin, hint) => {
    expect(() => config({ 'allowed-origin': [origin] })).toThrow(
      `serve: --allowed-origin expects an origin as browsers send it, http(s)://HOST[:PORT] with no path (https://app.example.com), got ${JSON.stringify(origin)}${hint}`,
    );
  });

  it('the connection flags and the quota are read in their units', () => {
    const parsed = config({
      'max-connections': '100',
      'headers-timeout': '2',
      'request-timeout': '5',
      'write-timeout': '0.5',
      'quota-bytes': '1000',
      'quota-files': '3',
    });
    expect(parsed).toMatchObject({
      maxConnections: 100,
      headersTimeoutMs: 2000,
      requestTimeoutMs: 5000,
      writeTimeoutMs: 500,
      quota: { maxBytes: 1000, maxFiles: 3 },
    });
    expect(config({ 'quota-files': '3' }).quota).toEqual({ maxFiles: 3 });
  });

  it('bad values are usage errors that name the flag', () => {
    expect(() => config({ 'max-connections': '0' })).toThrow(
      'serve: --max-connections expects a positive number, got "0"',
    );
    expect(() => config({ 'max-connections': '1.5' })).toThrow(
      'serve: --max-connections expects a whole number, got "1.5"',
    );
    expect(() => config({ 'quota-bytes': '-1' })).toThrow(
      'serve: --quota-bytes expects a positive number, got "-1"',
    );
    expect(() => config({ 'quota-files': '2.5' })).toThrow(
      'serve: --quota-files expects a whole number, got "2.5"',
    );
    expect(() => config({ 'write-timeout': 'soon' })).toThrow(
      'serve: --write-timeout expects a positive number, got "soon"',
    );
    expect(() => config({ 'headers-timeout': '200' })).toThrow(
      'serve: --headers-timeout (200) must not be longer than --request-timeout (120)',
    );
  });
});

describe('the tokens file', () => {
  const entry = (name: string, token: string, extra: Record<string, unknown> = {}) => ({
    name,
    namespace: name,
    mode: 'read-write',
    sha256: hashToken(token),
    created: '2026-12-01T00:00:00.000Z',
    ...extra,
  });

  it('finds each token by its hash, and nothing for another token', () => {
    const tokens = [generateToken(), generateToken(), generateToken()];
    const table = new TokenTable(
      parseTokensFile(
        JSON.stringify({ version: 1, tokens: tokens.map((token, index) => entry(`t${index}`, token)) }),
      ),
    );
    expect(tokens.map((token) => table.find(token)?.name)).toEqual(['t0', 't1', 't2']);
    expect(table.find(generateToken())).toBeUndefined();
    expect(table.find(`${tokens[0]}x`)).toBeUndefined();
    expect(table.find('')).toBeUndefined();
  });

  it.each([
    ['not JSON', '{', /not valid JSON/],
    ['no version', '{"tokens":[]}', /expected \{"version": 1/],
    [
      'two tokens of one name',
      JSON.stringify({ version: 1, tokens: [entry('a', 'x'), entry('a', 'y')] }),
      /two tokens are named a/,
    ],
    [
      'one hash twice',
      JSON.stringify({ version: 1, tokens: [entry('a', 'x'), entry('b', 'x')] }),
      /repeats another's hash/,
    ],
    [
      'a bad namespace',
      JSON.stringify({ version: 1, tokens: [entry('a', 'x', { namespace: '../b' })] }),
      /token a: /,
    ],
    [
      'a bad mode',
      JSON.stringify({ version: 1, tokens: [entry('a', 'x', { mode: 'admin' })] }),
      /mode must be/,
    ],
    [
      'a bad hash',
      JSON.stringify({ version: 1, tokens: [entry('a', 'x', { sha256: 'abc' })] }),
      /sha256 must be/,
    ],
    ['a bad name', JSON.stringify({ version: 1, tokens: [entry('a b', 'x')] }), /Invalid token name/],
  ])('refuses %s', (_case, text, message) => {
    expect(() => parseTokensFile(text)).toThrow(message);
  });
});

describe('rate and in-flight caps', () => {
  it('a token bucket lets a burst through, then says how many seconds to wait, and refills', () => {
    const limiter = new RateLimiter(2, 3);
    expect([0, 0, 0].map(() => limiter.take('a', 1000))).toEqual([0, 0, 0]);
    expect(limiter.take('a', 1000)).toBe(1);
    expect(limiter.take('b', 1000)).toBe(0);
    expect(limiter.take('a', 1500)).toBe(0);
    expect(limiter.take('a', 1500)).toBe(1);
    const slow = new RateLimiter(0.1, 1);
    expect(slow.take('a', 0)).toBe(0);
    expect(slow.take('a', 0)).toBe(10);
  });

  it('counts requests in flight per key and overall', async () => {
    const inFlight = new InFlight(3, 2);
    expect([inFlight.enter('a'), inFlight.enter('a'), inFlight.enter('a')]).toEqual(['ok', 'ok', 'key']);
    expect(inFlight.enter('b')).toBe('ok');
    expect(inFlight.enter('c')).toBe('overall');
    let idle = false;
    const waiting = inFlight.idle().then(() => {
      idle = true;
    });
    inFlight.leave('a');
    inFlight.leave('a');
    expect(idle).toBe(false);
    inFlight.leave('b');
    await waiting;
    expect(idle).toBe(true);
    expect(inFlight.total).toBe(0);
  });
});

describe('the access log line', () => {
  it('shows a method or command the client sent only when it is a known, plain name', () => {
    expect(methodLabel({ method: 'tools/call' })).toBe('tools/call');
    expect(methodLabel({ method: 'x\ninjected=1' })).toBe('other');
    expect(methodLabel({ id: 1, result: {} })).toBe('response');
    expect(commandLabel({ params: { arguments: { command: 'view', path: '/memories/secret' } } })).toBe(
      'view',
    );
    expect(commandLabel({ params: { arguments: { command: '/memories/secret' } } })).toBe('invalid');
    expect(commandLabel({ params: { arguments: 'view' } })).toBe('invalid');
  });

  it('has the fields in order, the refusal or the outcomes', () => {
    const record = {
      token: 'alice',
      methods: ['tools/call'],
      commands: ['view'],
      outcomes: ['NOT_FOUND'],
      refusal: undefined,
    };
    expect(accessLine(record, 200, 3.25)).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z token=alice method=tools\/call command=view outcome=NOT_FOUND status=200 ms=3\.3$/,
    );
    expect(accessLine({ ...record, outcomes: [] }, 'aborted', 1)).toContain('outcome=not-run status=aborted');
    expect(accessLine({ ...record, refusal: 'rate-limited' }, 429, 0)).toContain(
      'outcome=rate-limited status=429',
    );
    expect(accessLine({ ...record, commands: [], outcomes: [] }, 202, 0)).toContain('command=- outcome=ok');
  });
});
