// Accessibility: axe-core, run in Debian's Chromium on every page of the inspector, reports no
// serious or critical violation; at 320 px wide no page scrolls sideways as a whole.

import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newStoreId } from '../src/api/ids.js';
import { REGISTRY_NAMESPACE, Registry } from '../src/api/registry.js';
import { type Inspector, launchChromium, startInspector, TOKENS } from './ui-helpers.js';

const NAMESPACE = 'ui-a11y';
let browser: Browser;
let inspector: Inspector;
let axeSource: string;

beforeAll(async () => {
  axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  inspector = await startInspector('fs', NAMESPACE);
  const store = await inspector.store(NAMESPACE);
  const call = { actor: { type: 'session' as const, id: 'run-1' }, toolUseId: 'toolu_01' };
  await store.execute({ command: 'create', path: '/memories/notes/a.md', file_text: 'one\ntwo\n' }, call);
  await store.execute(
    { command: 'str_replace', path: '/memories/notes/a.md', old_str: 'two', new_str: 'three' },
    call,
  );
  // A memory store of the API beside it, named in the registry: the namespaces page shows its name.
  const id = newStoreId();
  await new Registry(() => inspector.store(REGISTRY_NAMESPACE)).create({
    id,
    name: 'Support team notes',
    description: '',
    metadata: {},
    archived_at: null,
    created_at: '2026-01-02T03:04:05.000Z',
    updated_at: '2026-01-02T03:04:05.000Z',
  });
  await (await inspector.store(id)).execute(
    { command: 'create', path: '/memories/customers/acme.md', file_text: 'Prefers email.\n' },
    call,
  );
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await inspector?.close();
});

describe('the inspector is accessible', () => {
  it('has no serious or critical axe violation on any page, signed out or in, and fits 320 px', async () => {
    // The test's own script (axe) is let in past the CSP; the pages are as served.
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 320, height: 640 } });
    const page = await context.newPage();
    const store = await inspector.store(NAMESPACE);
    const versions = (await store.history({ path: '/memories/notes/a.md' })).versions;
    const q = (query: Record<string, string>) => new URLSearchParams({ ns: NAMESPACE, ...query }).toString();
    const check = async (url: string) => {
      await page.goto(`${inspector.origin}${url}`);
      await page.addScriptTag({ content: axeSource });
      const violations = await page.evaluate(async () => {
        const axe = (
          globalThis as unknown as {
            axe: { run(): Promise<{ violations: Array<{ id: string; impact: string }> }> };
          }
        ).axe;
        return (await axe.run()).violations.map(({ id, impact }) => ({ id, impact }));
      });
      expect({
        url,
        violations: violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'),
      }).toEqual({ url, violations: [] });
      const wide = await page.evaluate(
        () =>
          (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
            .documentElement.scrollWidth,
      );
      expect({ url, wide }).toEqual({ url, wide: 320 });
    };
    await check('/ui/sign-in');
    await page.fill('#token', TOKENS.alice);
    await page.press('#token', 'Enter');
    await page.waitForURL(`${inspector.origin}/ui`);
    const pages = [
      '/ui',
      `/ui/tree?${q({ path: '/memories' })}`,
      `/ui/tree?${q({ path: '/memories/notes' })}`,
      `/ui/file?${q({ path: '/memories/notes/a.md' })}`,
      `/ui/history?${q({ path: '/memories/notes/a.md' })}`,
      `/ui/history?${q({})}`,
      `/ui/version?${q({ id: versions[0]!.id })}`,
      `/ui/diff?${q({ from: versions[1]!.id, to: versions[0]!.id })}`,
      `/ui/diff?${q({ from: versions[1]!.id, to: versions[0]!.id, view: 'split' })}`,
      `/ui/search?${q({ q: 'a.md' })}`,
      `/ui/restore?${q({ version: versions[1]!.id })}`,
      `/ui/redact?${q({ version: versions[1]!.id })}`,
    ];
    for (const url of pages) await check(url);
    // The history filtered by time, and a time the server refuses (its error page).
    await check(`/ui/history?${q({ since: '2000-01-01T00:00', until: '2099-01-01T00:00' })}`);
    await check(`/ui/history?${q({ since: 'not a time' })}`);
    // The operator's token sees every namespace, memory stores named.
    await context.clearCookies();
    await page.goto(`${inspector.origin}/ui/sign-in`);
    await page.fill('#token', TOKENS.ops);
    await page.press('#token', 'Enter');
    await page.waitForURL(`${inspector.origin}/ui`);
    await check('/ui');
    await context.close();
    // MEMDIR_UI_SCREENSHOTS=1: the README's pictures of each page, at a desktop width.
    if (process.env['MEMDIR_UI_SCREENSHOTS'] === '1') await screenshots(pages);
  }, 120_000); // sixteen pages, each checked by axe in Chromium, and their pictures when asked
});

/** Saves a picture of the sign-in page and of each of `pages` in docs/screenshots/ (for the README). */
async function screenshots(pages: readonly string[]): Promise<void> {
  const folder = new URL('../docs/screenshots/', import.meta.url);
  await mkdir(folder, { recursive: true });
  const context = await browser.newContext({ viewport: { width: 1100, height: 640 } });
  const page = await context.newPage();
  await page.goto(`${inspector.origin}/ui/sign-in`);
  await page.screenshot({ path: fileURLToPath(new URL('sign-in.png', folder)) });
  // The operator's token: the namespaces page shows every namespace, the memory store named.
  await page.fill('#token', TOKENS.ops);
  await page.press('#token', 'Enter');
  await page.waitForURL(`${inspector.origin}/ui`);
  const names = new Set<string>();
  for (const url of pages) {
    const parsed = new URL(url, inspector.origin);
    let name = parsed.pathname === '/ui' ? 'namespaces' : parsed.pathname.slice(4);
    if (parsed.searchParams.get('view') === 'split') name += '-side-by-side';
    if (name === 'history' && !parsed.searchParams.has('path')) name = 'namespace-history';
    if (names.has(name)) continue;
    names.add(name);
    await page.goto(`${inspector.origin}${url}`);
    await page.screenshot({ path: fileURLToPath(new URL(`${name}.png`, folder)), fullPage: true });
  }
  await context.close();
}
