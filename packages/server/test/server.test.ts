// The handler's shared steps, through `fetch(Request)` alone: no port, no runtime.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkJsonShape, createMemdirServer, readJsonBody, TokenTable } from '../src/index.js';

const sha = (token: string) => createHash('sha256').update(token).digest('hex');
const tokens = new TokenTable([
  { name: 'alice', namespace: 'team-a', mode: 'read-write', sha256: sha('memdir_alice') },
  { name: 'bob', namespace: 'team-b', mode: 'read-only', sha256: sha('memdir_bob') },
]);

function makeServer(extra: Partial<Parameters<typeof createMemdirServer>[0]> = {}) {
  const lines: string[] = [];
  const server = createMemdirServer({
    tokens: () => tokens,
    ready: async () => true,
    log: (line) => lines.push(line),
    allowedHosts: ['memdir.test'],
    ...extra,
  });
  server.door('/echo', async (request, context) => {
    const body = await readJsonBody(request, { maxBatch: 100 });
    if (!body.ok) {
      context.record.refusal = body.refusal;
      return new Response(null, { status: body.status });
    }
    const calls = Array.isArray(body.value) ? body.value.length : 1;
    const release = context.charge(calls);
    if (release instanceof Response) return release;
    release();
    return Response.json({ name: context.grant.name, namespace: context.grant.namespace });
  });
  return { server, lines };
}

const post = (body: string, headers: Record<string, string> = {}) =>
  new Request('http://memdir.test/echo', {
    method: 'POST',
    body,
    headers: { host: 'memdir.test', ...headers },
  });

describe('@memdir/server', () => {
  it('/healthz, /readyz and /metrics answer without a token; /readyz is 503 when the store does not answer', async () => {
    const { server } = makeServer({ ready: async () => false });
    expect((await server.fetch(new Request('http://memdir.test/healthz'))).status).toBe(200);
    const ready = await server.fetch(new Request('http://memdir.test/readyz'));
    expect(ready.status).toBe(503);
    const metrics = await server.fetch(new Request('http://memdir.test/metrics'));
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    const text = await metrics.text();
    expect(text).toContain('memdir_http_requests_total{door="/readyz",outcome="store-unavailable"} 1');
    expect(text).toContain('# TYPE memdir_http_request_duration_seconds histogram');
    expect(text).toContain('memdir_http_requests_in_flight 1');
  });

  it('Bearer and X-Api-Key both authenticate; the door sees the grant', async () => {
    const { server } = makeServer();
    const bearer = await server.fetch(post('{}', { authorization: 'bearer  memdir_alice ' }));
    expect(await bearer.json()).toEqual({ name: 'alice', namespace: 'team-a' });
    const apiKey = await server.fetch(post('{}', { 'x-api-key': 'memdir_bob' }));
    expect(await apiKey.json()).toEqual({ name: 'bob', namespace: 'team-b' });
  });

  it('a wrong token gets 401 with error="invalid_token"; a missing one a bare challenge; both name the resource metadata', async () => {
    const { server } = makeServer();
    const wrong = await server.fetch(post('{}', { authorization: 'Bearer memdir_wrong' }));
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="memdir", error="invalid_token", .*resource_metadata="http:\/\/memdir\.test\/\.well-known\/oauth-protected-resource"$/,
    );
    const missing = await server.fetch(post('{}'));
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).not.toContain('error=');
    expect(await missing.text()).toBe(await (await server.fetch(post('{}'))).text());
    const metadata = await server.fetch(
      new Request('http://memdir.test/.well-known/oauth-protected-resource'),
    );
    expect(await metadata.json()).toMatchObject({ authorization_servers: [] });
  });

  it('a foreign Host or Origin gets 403 before authentication; no CORS header is sent', async () => {
    const { server, lines } = makeServer();
    const host = await server.fetch(
      new Request('http://attacker.example/echo', {
        method: 'POST',
        body: '{}',
        headers: { authorization: 'Bearer memdir_alice' },
      }),
    );
    expect(host.status).toBe(403);
    const origin = await server.fetch(
      post('{}', { authorization: 'Bearer memdir_alice', origin: 'http://attacker.example' }),
    );
    expect(origin.status).toBe(403);
    expect([...origin.headers.keys()].some((key) => key.startsWith('access-control'))).toBe(false);
    expect(lines.join('\n')).toMatch(/outcome=origin status=403/);
  });

  it('a 1M-element array is refused in one scan, with a bounded log line, and answers quickly', async () => {
    const { server, lines } = makeServer();
    const body = `[${Array(1_000_000).fill('0').join(',')}]`;
    const started = performance.now();
    const response = await server.fetch(post(body, { authorization: 'Bearer memdir_bob' }));
    expect(response.status).toBe(400);
    expect(performance.now() - started).toBeLessThan(500);
    expect(lines.at(-1)!.length).toBeLessThan(300);
    expect(lines.at(-1)).toMatch(
      /^client=- token=bob door=\/echo method=POST command=- outcome=batch-too-large status=400/,
    );
  });

  it('JSON nested past the depth limit is refused before parsing; brackets in strings do not count', () => {
    expect(checkJsonShape('['.repeat(100_000))).toBe('too-deep');
    expect(checkJsonShape(JSON.stringify({ a: '[[[[[[[['.repeat(100) }), { maxDepth: 2 })).toBeUndefined();
    expect(checkJsonShape('[1]')).toBe('batch-too-large');
    expect(checkJsonShape('[1,2]', { maxBatch: 2 })).toBeUndefined();
    expect(checkJsonShape('[]', { maxBatch: 0 })).toBeUndefined();
  });

  it('the bounds hold at their edges, whether a body is counted or scanned', () => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    expect(checkJsonShape(nested(64), { maxBatch: 1 })).toBeUndefined();
    expect(checkJsonShape(nested(65), { maxBatch: 1 })).toBe('too-deep');
    expect(checkJsonShape(`{"a":${nested(63)}}`)).toBeUndefined();
    expect(checkJsonShape(`{"a":${nested(64)}}`)).toBe('too-deep');
    // Brackets and commas inside strings count for neither bound.
    expect(checkJsonShape(JSON.stringify({ a: '{['.repeat(100), b: ','.repeat(500) }))).toBeUndefined();
    expect(checkJsonShape(JSON.stringify([','.repeat(500)]), { maxBatch: 1 })).toBeUndefined();
    expect(checkJsonShape('[1,2,3]', { maxBatch: 3 })).toBeUndefined();
    expect(checkJsonShape('[1,2,3]', { maxBatch: 2 })).toBe('batch-too-large');
    expect(checkJsonShape(' \n[1]', { maxBatch: 0 })).toBe('batch-too-large');
    // A top-level array after other text (not JSON; the scan still refuses it before any parse).
    expect(checkJsonShape('{} [1,2,3]', { maxBatch: 2 })).toBe('batch-too-large');
    expect(checkJsonShape('{"a":[1,2,3]}', { maxBatch: 0 })).toBeUndefined();
  });

  it('the rate is charged per call: a batch of 30 calls with a burst of 40 leaves room for 10, not 39', async () => {
    const { server } = makeServer({ ratePerSecond: 0.001, burst: 40 });
    const auth = { authorization: 'Bearer memdir_alice' };
    const batch = JSON.stringify(Array(30).fill({}));
    expect((await server.fetch(post(batch, auth))).status).toBe(200);
    const second = await server.fetch(post(batch, auth));
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
    const metrics = await (await server.fetch(new Request('http://memdir.test/metrics'))).text();
    expect(metrics).toContain('memdir_rate_limited_total{token="alice"} 1');
    expect(metrics).not.toContain('memdir_alice');
  });

  it('the access log has the client address the runtime passes, and never a token', async () => {
    const { server, lines } = makeServer();
    await server.fetch(post('{}', { authorization: 'Bearer memdir_alice' }), {
      clientAddress: '203.0.113.9',
    });
    expect(lines.at(-1)).toMatch(/^client=203\.0\.113\.9 token=alice door=\/echo .*status=200/);
    expect(lines.join('\n')).not.toContain('memdir_alice');
  });

  it('a body cut before its end is refused as aborted, not thrown', async () => {
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) {
          controller.error(new Error('aborted'));
          return;
        }
        sent = true;
        controller.enqueue(new TextEncoder().encode('{"jsonrpc":'));
      },
    });
    const request = new Request('http://memdir.test/echo', {
      method: 'POST',
      body,
      duplex: 'half',
    } as RequestInit);
    expect(await readJsonBody(request)).toEqual({ ok: false, refusal: 'aborted', status: 400 });
  });

  it('CORS is answered for the allowed origins alone, preflight before authentication', async () => {
    const { server } = makeServer({ allowedOrigins: ['https://app.example.com'] });
    const preflight = await server.fetch(
      new Request('http://memdir.test/echo', {
        method: 'OPTIONS',
        headers: {
          host: 'memdir.test',
          origin: 'https://app.example.com',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type, mcp-session-id',
        },
      }),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    const answer = await server.fetch(
      post('{}', { authorization: 'Bearer memdir_alice', origin: 'https://app.example.com' }),
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(answer.headers.get('access-control-expose-headers')).toBe(
      'mcp-session-id,www-authenticate,retry-after',
    );
    const foreign = await server.fetch(
      post('{}', { authorization: 'Bearer memdir_alice', origin: 'https://attacker.example' }),
    );
    expect(foreign.status).toBe(403);
    expect([...foreign.headers.keys()].filter((key) => key.startsWith('access-control'))).toEqual([]);
  });
});
