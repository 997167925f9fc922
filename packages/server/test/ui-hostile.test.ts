// Hostile content stays text: files whose names, paths and contents carry script tags, event
// handlers, `javascript:` links, SVG, CSS and Unicode direction tricks, written through the memory
// tool as a poisoned model would. Every page that shows them runs none of it (no dialog, no console
// error, no global set by a payload), loads nothing from outside the server, and shows the text.
import type { MemdirStore } from '@memdir/core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newStoreId } from '../src/api/ids.js';
import { REGISTRY_NAMESPACE, Registry } from '../src/api/registry.js';
import { type Inspector, launchChromium, PAGE_HEADERS, startInspector, TOKENS } from './ui-helpers.js';

const NAMESPACE = 'ui-hostile';
/** Each payload tries to set `window.pwned`, open a dialog, or fetch from outside. */
const PAYLOADS = [
  '<script>window.pwned=1;alert(1)</script>',
  '"><img src=x onerror="window.pwned=2;alert(2)">',
  "'><svg onload=window.pwned=3><script>alert(3)</script></svg>",
  '<a href="javascript:window.pwned=4">click</a>',
  '<style>@import url(http://evil.example/x.css);body{background:url(http://evil.example/b.png)}</style>',
  '<link rel=stylesheet href=http://evil.example/l.css><iframe src=http://evil.example/f></iframe>',
  '<meta http-equiv="refresh" content="0;url=http://evil.example/">',
  '</pre></code></td></tr></table><base href=http://evil.example/>',
];
const HOSTILE_DIR = '/memories/<svg onload=window.pwned=5>';
const HOSTILE_FILE = `${HOSTILE_DIR}/"><img src=x onerror=window.pwned=6>.md`;
/** A right-to-left override: shown as a mark, so `txt.exe` cannot pose as `exe.txt`. */
const BIDI_FILE = '/memories/report\u202Etxt.exe';

let browser: Browser;
let context: BrowserContext;
let page: Page;
let inspector: Inspector;
let store: MemdirStore;
const dialogs: string[] = [];
const consoleErrors: string[] = [];
const outside: string[] = [];

beforeAll(async () => {
  inspector = await startInspector('fs', NAMESPACE);
  store = await inspector.store(NAMESPACE);
  const call = {
    actor: { type: 'session' as const, id: '<script>alert(7)</script>' },
    toolUseId: '<b onmouseover=alert(8)>',
  };
  await store.execute({ command: 'create', path: HOSTILE_FILE, file_text: `${PAYLOADS.join('\n')}\n` }, call);
  await store.execute(
    { command: 'str_replace', path: HOSTILE_FILE, old_str: PAYLOADS[0]!, new_str: `${PAYLOADS[1]!} again` },
    call,
  );
  await store.execute({ command: 'create', path: BIDI_FILE, file_text: 'abc\u202Edef\u2066 <x>\n' }, call);
  browser = await launchChromium();
  context = await browser.newContext();
  page = await context.newPage();
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${inspector.origin}/`)) return route.continue();
    outside.push(url);
    return route.abort();
  });
  await page.goto(`${inspector.origin}/ui/sign-in`);
  await page.fill('#token', TOKENS.alice);
  await page.press('#token', 'Enter');
  await page.waitForURL(`${inspector.origin}/ui`);
});
afterAll(async () => {
  await browser?.close();
  await inspector?.close();
});

/** Opens `url` and checks that nothing ran and nothing left the server. */
async function visit(url: string): Promise<string> {
  const response = await page.goto(url);
  expect(response?.status()).toBe(200);
  await page.waitForLoadState('load');
  expect(await page.evaluate(() => (globalThis as { pwned?: unknown }).pwned)).toBeUndefined();
  expect(dialogs).toEqual([]);
  expect(consoleErrors).toEqual([]);
  expect(outside).toEqual([]);
  // Every link stays in the inspector; no element a payload would have made exists.
  const hrefs = await page
    .locator('a[href]')
    .evaluateAll((links) => links.map((link) => link.getAttribute('href')));
  // Every link is the inspector's own, or the skip link to the page's content.
  expect(hrefs.filter((href) => href !== '#main' && !href?.startsWith('/ui'))).toEqual([]);
  expect(
    await page
      .locator('main script, main img, main svg, main iframe, main style, main link, base, meta[http-equiv]')
      .count(),
  ).toBe(0);
  return page.locator('body').innerText();
}

describe('hostile content in the inspector', () => {
  it('shows hostile names, paths and contents as text on every page, and runs none of them', async () => {
    const q = (query: Record<string, string>) => new URLSearchParams({ ns: NAMESPACE, ...query }).toString();
    const o = inspector.origin;
    const folder = await visit(`${o}/ui/tree?${q({ path: '/memories' })}`);
    expect(folder).toContain('<svg onload=window.pwned=5>/');
    expect(folder).toContain('reportU+202Etxt.exe');
    const inner = await visit(`${o}/ui/tree?${q({ path: HOSTILE_DIR })}`);
    expect(inner).toContain('"><img src=x onerror=window.pwned=6>.md');
    const file = await visit(`${o}/ui/file?${q({ path: HOSTILE_FILE })}`);
    for (const payload of PAYLOADS.slice(1)) expect(file).toContain(payload);
    const bidi = await visit(`${o}/ui/file?${q({ path: BIDI_FILE })}`);
    expect(bidi).toContain('abcU+202EdefU+2066 <x>');
    const history = await visit(`${o}/ui/history?${q({ path: HOSTILE_FILE })}`);
    expect(history).toContain('session:<script>alert(7)</script>');
    expect(history).toContain('<b onmouseover=alert(8)>');
    const versions = (await store.history({ path: HOSTILE_FILE })).versions;
    await visit(`${o}/ui/version?${q({ id: versions[1]!.id })}`);
    const diff = await visit(`${o}/ui/diff?${q({ from: versions[1]!.id, to: versions[0]!.id })}`);
    expect(diff).toContain(`-${PAYLOADS[0]}`);
    expect(diff).toContain(`+${PAYLOADS[1]} again`);
    const split = await visit(
      `${o}/ui/diff?${q({ from: versions[1]!.id, to: versions[0]!.id, view: 'split' })}`,
    );
    expect(split).toContain(PAYLOADS[0]);
    const found = await visit(`${o}/ui/search?${q({ q: '<svg' })}`);
    expect(found).toContain(HOSTILE_FILE);
    await visit(`${o}/ui/history?${q({})}`);
    await visit(`${o}/ui/restore?${q({ version: versions[1]!.id })}`);
    await visit(`${o}/ui/redact?${q({ version: versions[1]!.id })}`);
    await visit(`${o}/ui/tree?${q({ path: '/memories', at: versions[0]!.id })}`);
  });

  it("shows a memory store's hostile name as text on the namespaces page", async () => {
    // A store named through the memory stores API: the name is anyone's text, direction tricks too.
    const id = newStoreId();
    const name = `${PAYLOADS[0]}${PAYLOADS[1]}report\u202Etxt.exe`;
    await new Registry(() => inspector.store(REGISTRY_NAMESPACE)).create({
      id,
      name,
      description: PAYLOADS[2]!,
      metadata: {},
      archived_at: null,
      created_at: '2026-01-02T03:04:05.000Z',
      updated_at: '2026-01-02T03:04:05.000Z',
    });
    await (await inspector.store(id)).execute(
      { command: 'create', path: '/memories/a.md', file_text: 'a' },
      {},
    );
    // The operator's token sees every namespace, so the page lists the store.
    await context.clearCookies();
    await page.goto(`${inspector.origin}/ui/sign-in`);
    await page.fill('#token', TOKENS.ops);
    await page.press('#token', 'Enter');
    await page.waitForURL(`${inspector.origin}/ui`);
    const namespaces = await visit(`${inspector.origin}/ui`);
    expect(namespaces).toContain(`${PAYLOADS[0]}${PAYLOADS[1]}reportU+202Etxt.exe (active)`);
    expect(await page.locator('.store-name').allInnerTexts()).toEqual([
      `${PAYLOADS[0]}${PAYLOADS[1]}reportU+202Etxt.exe`,
    ]);
  });

  it('serves raw content as plain text, never sniffed, sandboxed, with the exact headers', async () => {
    const response = await page.goto(
      `${inspector.origin}/ui/raw?${new URLSearchParams({ ns: NAMESPACE, path: HOSTILE_FILE })}`,
    );
    expect(response?.headers()).toMatchObject({
      ...PAGE_HEADERS,
      'content-type': 'text/plain; charset=utf-8',
      'content-security-policy': `${PAGE_HEADERS['content-security-policy']}; sandbox`,
    });
    expect(await page.evaluate(() => (globalThis as { pwned?: unknown }).pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
    expect(outside).toEqual([]);
    const page200 = await context.request.get(`${inspector.origin}/ui/tree?ns=${NAMESPACE}&path=/memories`);
    expect(page200.headers()).toMatchObject({ ...PAGE_HEADERS, 'content-type': 'text/html; charset=utf-8' });
  });
});
