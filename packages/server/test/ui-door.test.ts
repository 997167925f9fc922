// The inspector's door without a browser: how it signs in and out, what it refuses, and what the
// server's shared steps do for a door mounted at `PATH/*` (its label, its cookie, its own origin).
import { createHash } from 'node:crypto';
import { createInMemoryDriver, createMemoryAdmin, createMemoryStore, type MemdirStore } from '@memdir/core';
import { describe, expect, it } from 'vitest';
import { createMemdirServer, mountInspector, TokenTable } from '../src/index.js';
import { PAGE_HEADERS, TOKENS } from './ui-helpers.js';

const sha = (token: string) => createHash('sha256').update(token).digest('hex');
const ORIGIN = 'http://inspector.test';
const tokens = new TokenTable([
  { name: 'alice', namespace: 'team-a', mode: 'read-write', sha256: sha(TOKENS.alice) },
  { name: 'reader', namespace: 'team-a', mode: 'read-only', sha256: sha(TOKENS.reader) },
  { name: 'ops', namespace: 'team-a', mode: 'read-write', sha256: sha(TOKENS.ops), stores: true },
]);
const driver = createInMemoryDriver();
const stores = new Map<string, MemdirStore>();
const lines: string[] = [];
const server = createMemdirServer({
  tokens: () => tokens,
  ready: async () => true,
  log: (line) => lines.push(line),
});
server.door('/mcp', async () => new Response('mcp'));
mountInspector(server, {
  tokens: () => tokens,
  store: async (namespace) => {
    if (!stores.has(namespace)) stores.set(namespace, createMemoryStore(driver, { namespace }));
    return stores.get(namespace)!;
  },
  admin: createMemoryAdmin(driver),
});

const cookie = (token: string) => `memdir_ui=${token}`;
const form = (fields: Record<string, string>, headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  body: new URLSearchParams(fields).toString(),
});
const fetchUi = (path: string, init: RequestInit = {}) => server.fetch(new Request(`${ORIGIN}${path}`, init));

describe('the inspector door', () => {
  it('sends a request without a session to the sign-in page, and serves its style sheet to anyone', async () => {
    const home = await fetchUi('/ui');
    expect(home.status).toBe(303);
    expect(home.headers.get('location')).toBe('/ui/sign-in');
    const deep = await fetchUi('/ui/tree?path=/memories', { headers: { cookie: cookie('memdir_wrong') } });
    expect(deep.headers.get('location')).toBe('/ui/sign-in');
    const signIn = await fetchUi('/ui/sign-in');
    expect(signIn.status).toBe(200);
    expect(Object.fromEntries(signIn.headers)).toMatchObject({
      ...PAGE_HEADERS,
      'content-type': 'text/html; charset=utf-8',
    });
    const css = await fetchUi('/ui/assets/ui.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.headers.get('x-content-type-options')).toBe('nosniff');
    const post = await fetchUi('/ui/restore', form({ version: 'memver_x' }));
    expect(post.status).toBe(401);
    expect(await post.text()).toContain('Sign in first: nothing was done.');
  });

  it('signs in with a token of the table (not a wrong one, not from another site) and out again', async () => {
    const wrong = await fetchUi('/ui/sign-in', form({ token: 'memdir_wrong' }, { origin: ORIGIN }));
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect(await wrong.text()).toContain('That token is not one this server accepts.');
    const elsewhere = await fetchUi(
      '/ui/sign-in',
      form({ token: TOKENS.alice }, { origin: 'http://evil.example' }),
    );
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.headers.get('set-cookie')).toBeNull();
    const right = await fetchUi('/ui/sign-in', form({ token: ` ${TOKENS.alice} ` }, { origin: ORIGIN }));
    expect(right.status).toBe(303);
    expect(right.headers.get('set-cookie')).toBe(
      `memdir_ui=${TOKENS.alice}; Path=/ui; HttpOnly; SameSite=Strict`,
    );
    const overHttps = await server.fetch(
      new Request('https://inspector.test/ui/sign-in', form({ token: TOKENS.alice })),
    );
    expect(overHttps.headers.get('set-cookie')).toBe(
      `memdir_ui=${TOKENS.alice}; Path=/ui; HttpOnly; Secure; SameSite=Strict`,
    );
    const page = await (await fetchUi('/ui', { headers: { cookie: cookie(TOKENS.alice) } })).text();
    const csrf = /name="csrf" value="([0-9a-f]{64})"/.exec(page)?.[1] ?? '';
    const out = await fetchUi('/ui/sign-out', form({ csrf }, { cookie: cookie(TOKENS.alice) }));
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toBe('memdir_ui=; Max-Age=0; Path=/ui; HttpOnly; SameSite=Strict');
  });

  it("lets the inspector's own origin through the Origin check, and no other origin nor door", async () => {
    const same = await fetchUi('/ui', { headers: { cookie: cookie(TOKENS.alice), origin: ORIGIN } });
    expect(same.status).toBe(200);
    const other = await fetchUi('/ui', {
      headers: { cookie: cookie(TOKENS.alice), origin: 'http://evil.example' },
    });
    expect(other.status).toBe(403);
    const mcp = await fetchUi('/mcp', {
      headers: { authorization: `Bearer ${TOKENS.alice}`, origin: ORIGIN },
    });
    expect(mcp.status).toBe(403);
    // The cookie is the inspector's: another door does not take it.
    const mcpCookie = await fetchUi('/mcp', { headers: { cookie: cookie(TOKENS.alice) } });
    expect(mcpCookie.status).toBe(401);
    expect(lines.at(-1)).toContain('door=/mcp');
    await fetchUi('/ui/tree', { headers: { cookie: cookie(TOKENS.alice) } });
    expect(lines.at(-1)).toMatch(
      /^client=- token=alice door=\/ui method=GET command=- outcome=ok status=200 ms=/,
    );
  });

  it('refuses what it cannot read, another namespace, an unknown page and another method, changing nothing', async () => {
    const headers = { cookie: cookie(TOKENS.alice) };
    const big = await fetchUi('/ui/restore', form({ csrf: 'x'.repeat(9000) }, headers));
    expect(big.status).toBe(400);
    expect(await big.text()).toContain('The form could not be read: nothing was done.');
    const otherNamespace = await fetchUi('/ui/tree?ns=team-b', { headers });
    expect(otherNamespace.status).toBe(404);
    expect(await otherNamespace.text()).toContain(
      'There is no such namespace, or this token may not see it.',
    );
    expect(stores.has('team-b')).toBe(false);
    expect((await fetchUi('/ui/nothing', { headers })).status).toBe(404);
    expect((await fetchUi('/ui/tree', { method: 'PUT', headers })).status).toBe(405);
    const missing = await fetchUi('/ui/file?path=/memories/none.md', { headers });
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('There is no file at this path.');
    const badVersion = await fetchUi('/ui/version?id=nope', { headers });
    expect(badVersion.status).toBe(400);
    const readerPage = await fetchUi('/ui/restore?version=memver_x', {
      headers: { cookie: cookie(TOKENS.reader) },
    });
    expect(readerPage.status).toBe(403);
  });

  it('shows a --stores token every namespace with its usage, and a namespace token only its own', async () => {
    for (const namespace of ['team-a', 'team-b']) {
      const store = createMemoryStore(driver, { namespace });
      await store.execute({ command: 'create', path: '/memories/a.md', file_text: `${namespace}\n` });
    }
    const ops = await (await fetchUi('/ui', { headers: { cookie: cookie(TOKENS.ops) } })).text();
    expect(ops).toContain(
      '<a href="/ui/tree?ns=team-a&amp;path=%2Fmemories">team-a</a></td>\n<td>-</td>\n<td class="num">1</td>\n<td class="num">7 B</td>',
    );
    expect(ops).toContain(
      '<a href="/ui/tree?ns=team-b&amp;path=%2Fmemories">team-b</a></td>\n<td>-</td>\n<td class="num">1</td>\n<td class="num">7 B</td>',
    );
    const invalid = await fetchUi('/ui/tree?ns=not%20a%20name', { headers: { cookie: cookie(TOKENS.ops) } });
    expect(invalid.status).toBe(404);
    expect(await invalid.text()).toContain('There is no such namespace.');
    expect(stores.has('not a name')).toBe(false);
    const other = await fetchUi('/ui/file?ns=team-b&path=/memories/a.md', {
      headers: { cookie: cookie(TOKENS.ops) },
    });
    expect(await other.text()).toContain('1\tteam-b');
    const alice = await (await fetchUi('/ui', { headers: { cookie: cookie(TOKENS.alice) } })).text();
    expect(alice).toContain('>team-a</a>');
    expect(alice).not.toContain('team-b');
  });

  it('pages a large folder 100 files at a time, with a link to the next page', async () => {
    const store = createMemoryStore(driver, { namespace: 'team-a' });
    for (let index = 0; index < 150; index += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, n) =>
          store.execute({
            command: 'create',
            path: `/memories/big/f${String(index + n).padStart(3, '0')}.md`,
            file_text: 'x',
          }),
        ),
      );
    }
    const headers = { cookie: cookie(TOKENS.alice) };
    const first = await (await fetchUi('/ui/tree?path=/memories/big', { headers })).text();
    expect(first.match(/>f\d{3}\.md<\/a>/g)?.length).toBe(100);
    expect(first).toContain('>f000.md</a>');
    expect(first).toContain('>f099.md</a>');
    const next = /<a href="(\/ui\/tree\?[^"]*cursor=[^"]*)">Next page<\/a>/
      .exec(first)?.[1]
      ?.replaceAll('&amp;', '&');
    expect(next).toBeDefined();
    const second = await (await fetchUi(next!, { headers })).text();
    expect(second.match(/>f\d{3}\.md<\/a>/g)?.length).toBe(50);
    expect(second).toContain('>f149.md</a>');
    expect(second).not.toContain('Next page');
  });
});
