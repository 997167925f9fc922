// The inspector in Debian's Chromium, on the fs store and on PostgreSQL: a person signs in, opens a
// namespace, a file, its history and a diff, restores a version and redacts one, and looks at the
// tree as it was; a read-only token sees no change control and its forged change is refused.
import type { MemdirStore } from '@memdir/core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newStoreId } from '../src/api/ids.js';
import { REGISTRY_NAMESPACE, Registry } from '../src/api/registry.js';
import {
  type Backend,
  type Inspector,
  launchChromium,
  PAGE_HEADERS,
  startInspector,
  TOKENS,
} from './ui-helpers.js';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

async function signIn(page: Page, origin: string, token: string): Promise<void> {
  await page.goto(`${origin}/ui`);
  expect(new URL(page.url()).pathname).toBe('/ui/sign-in');
  await page.fill('#token', token);
  await page.press('#token', 'Enter');
  await page.waitForURL(`${origin}/ui`);
}

describe.each<Backend>(['fs', 'postgres'])('the inspector on %s', (backend) => {
  let inspector: Inspector;
  let store: MemdirStore;
  const namespace = `ui-journey-${backend}`;
  let between: string;

  beforeAll(async () => {
    inspector = await startInspector(backend, namespace);
    store = await inspector.store(namespace);
    const session = { actor: { type: 'session' as const, id: 'run-1' }, toolUseId: 'toolu_01' };
    await store.execute(
      { command: 'create', path: '/memories/notes.md', file_text: 'first\nline two\n' },
      session,
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    between = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await store.execute(
      { command: 'str_replace', path: '/memories/notes.md', old_str: 'first', new_str: 'second' },
      { ...session, toolUseId: 'toolu_02' },
    );
    await store.execute({ command: 'create', path: '/memories/later/plan.md', file_text: 'plan\n' }, session);
  });
  afterAll(async () => {
    await inspector?.close();
  });

  it('signs in, shows a namespace, a file, its history and a diff, restores and redacts', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, inspector.origin, TOKENS.alice);
    const cookies = await context.cookies();
    expect(cookies.map(({ name, path, httpOnly, sameSite }) => ({ name, path, httpOnly, sameSite }))).toEqual(
      [{ name: 'memdir_ui', path: '/ui', httpOnly: true, sameSite: 'Strict' }],
    );

    const home = await page.goto(`${inspector.origin}/ui`);
    expect(home?.status()).toBe(200);
    expect(home?.headers()).toMatchObject(PAGE_HEADERS);
    expect(await page.locator('tbody tr').count()).toBe(1);
    expect(await page.locator('tbody tr td').nth(0).innerText()).toBe(namespace);
    expect(await page.locator('tbody tr td').nth(1).innerText()).toBe('-');
    expect(await page.locator('tbody tr td').nth(2).innerText()).toBe('2');

    await page.click(`a:text-is("${namespace}")`);
    expect(await page.locator('h1').innerText()).toBe('/memories');
    // A folder row has its file count and total size (all levels down); a file row its size.
    const row = (name: string) => page.locator('tbody tr', { has: page.locator(`a:text-is("${name}")`) });
    expect(await row('later/').locator('td').allInnerTexts()).toEqual(['later/', '1', '5 B', '-']);
    expect((await row('notes.md').locator('td').allInnerTexts()).slice(0, 3)).toEqual([
      'notes.md',
      '',
      '16 B',
    ]);
    await page.click('a:text-is("notes.md")');
    expect(await page.locator('h1').innerText()).toBe('/memories/notes.md');
    expect(await page.locator('pre').innerText()).toBe(
      "Here's the content of /memories/notes.md with line numbers:\n     1\tsecond\n     2\tline two\n     3\t",
    );
    const raw = await context.request.get(
      `${inspector.origin}/ui/raw?ns=${namespace}&path=/memories/notes.md`,
    );
    expect(await raw.text()).toBe('second\nline two\n');
    expect(raw.headers()['content-type']).toBe('text/plain; charset=utf-8');
    expect(raw.headers()['content-security-policy']).toBe(
      `${PAGE_HEADERS['content-security-policy']}; sandbox`,
    );

    await page.click('a:text-is("History")');
    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBe(2);
    const cells = async (row: number) => (await rows.nth(row).locator('td').allInnerTexts()).slice(1, 7);
    expect(await cells(0)).toEqual([
      'modified',
      '/memories/notes.md',
      'session:run-1',
      'str_replace',
      'toolu_02',
      '16 B',
    ]);
    expect(await cells(1)).toEqual([
      'created',
      '/memories/notes.md',
      'session:run-1',
      'create',
      'toolu_01',
      '15 B',
    ]);

    await rows.nth(0).locator('a:text-is("diff")').click();
    expect(await page.locator('pre.diff').innerText()).toMatch(
      /@@ -1,2 \+1,2 @@\n-first\n\+second\n line two/,
    );

    await page.click('a:text-is("Side by side")');
    const split = page.locator('table.split tbody tr');
    expect(await split.count()).toBe(3);
    expect(await split.nth(1).locator('td').allInnerTexts()).toEqual(['1', 'first', '1', 'second']);
    expect(await split.nth(2).locator('td').allInnerTexts()).toEqual(['2', 'line two', '2', 'line two']);

    // Restore the first version: the file changes, and a `restored` version by alice appears.
    await page.goBack();
    await page.goBack();
    await rows.nth(1).locator('a:text-is("restore")').click();
    await page.click('button:text-is("Restore this version")');
    expect(new URL(page.url()).pathname).toBe('/ui/history');
    expect(await cells(0)).toEqual(['restored', '/memories/notes.md', 'user:alice', 'restore', '-', '15 B']);
    expect((await store.records.get('/memories/notes.md', { content: true }))?.content).toBe(
      'first\nline two\n',
    );

    // Redact the modified version: a wrong confirmation changes nothing, the id itself redacts it.
    const modified = (await rows.nth(1).locator('td').nth(7).innerText()).trim();
    await rows.nth(1).locator('a:text-is("redact")').click();
    await page.fill('#confirm', 'yes');
    await page.click('button:text-is("Redact this version")');
    expect(await page.locator('p.error').innerText()).toBe(
      'Nothing was redacted: type the version id exactly to confirm.',
    );
    expect((await store.version(modified)).content).toBe('second\nline two\n');
    await page.goBack();
    await page.fill('#confirm', modified);
    await page.click('button:text-is("Redact this version")');
    expect(await page.locator('main').innerText()).toContain(
      'This version has no content (a deletion, or redacted).',
    );
    expect((await store.version(modified)).content).toBeNull();

    // A path search.
    await page.goto(`${inspector.origin}/ui/tree?ns=${namespace}&path=/memories`);
    await page.click('a:text-is("Search paths")');
    await page.fill('input[name=q]', 'PLAN');
    await page.press('input[name=q]', 'Enter');
    expect(await page.locator('main li').allInnerTexts()).toEqual(['/memories/later/plan.md 5 B']);

    // The tree as it was between the two changes: no `later/` yet.
    await page.goto(`${inspector.origin}/ui/tree?ns=${namespace}&path=/memories`);
    await page.fill('input[name=at]', between);
    await page.press('input[name=at]', 'Enter');
    const listing = await page.locator('pre').innerText();
    expect(listing).toContain('/memories/notes.md');
    expect(listing).not.toContain('later');
    await context.close();
  });

  it('folder sizes count every level down, without reading content', async () => {
    await store.execute({ command: 'create', path: '/memories/deep/a/b/one.md', file_text: '12345' }, {});
    await store.execute(
      { command: 'create', path: '/memories/deep/two.md', file_text: 'x'.repeat(2000) },
      {},
    );
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, inspector.origin, TOKENS.alice);
    await page.goto(`${inspector.origin}/ui/tree?ns=${namespace}&path=/memories`);
    const deep = page.locator('tbody tr', { has: page.locator('a:text-is("deep/")') });
    expect(await deep.locator('td').allInnerTexts()).toEqual(['deep/', '2', '2.0 KiB', '-']);
    await page.goto(`${inspector.origin}/ui/tree?ns=${namespace}&path=/memories/deep`);
    const a = page.locator('tbody tr', { has: page.locator('a:text-is("a/")') });
    expect(await a.locator('td').allInnerTexts()).toEqual(['a/', '1', '5 B', '-']);
    await store.execute({ command: 'delete', path: '/memories/deep' }, {});
    await context.close();
  });

  it('filters the history by time with date-time fields, and refuses a bad time', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, inspector.origin, TOKENS.alice);
    await page.goto(`${inspector.origin}/ui/history?ns=${namespace}&path=/memories/notes.md`);
    const since = page.getByLabel('Since (UTC)');
    const until = page.getByLabel('Until (UTC)');
    expect(await since.getAttribute('type')).toBe('datetime-local');
    expect(await until.getAttribute('type')).toBe('datetime-local');
    const all = await page.locator('tbody tr').count();
    expect(all).toBeGreaterThan(1);

    // Typed with the keyboard and sent with Enter: a time after every version shows none.
    await since.fill('2099-01-01T00:00');
    await since.press('Enter');
    await page.waitForURL(/since=2099-01-01T00%3A00/);
    expect(await page.locator('main p').last().innerText()).toBe('No versions match.');
    // Chromium shows a time on the minute without its seconds.
    expect(await page.getByLabel('Since (UTC)').inputValue()).toBe('2099-01-01T00:00');

    // Both fields at once: every version lies between 2000 and 2099; none before 2000.
    await page.getByLabel('Since (UTC)').fill('2000-01-01T00:00');
    await page.getByLabel('Until (UTC)').fill('2099-01-01T00:00:30');
    await page.getByLabel('Until (UTC)').press('Enter');
    await page.waitForURL(/until=2099-01-01T00%3A00%3A30/);
    expect(await page.locator('tbody tr').count()).toBe(all);
    expect(await page.getByLabel('Until (UTC)').inputValue()).toBe('2099-01-01T00:00:30');
    await page.getByLabel('Since (UTC)').fill('');
    await page.getByLabel('Until (UTC)').fill('2000-01-01T00:00');
    await page.getByLabel('Until (UTC)').press('Enter');
    await page.waitForURL(/until=2000-01-01T00%3A00$/);
    expect(await page.locator('main p').last().innerText()).toBe('No versions match.');

    // The address bar takes the forms `memdir log` takes: a time ago, an ISO 8601 time.
    await page.goto(`${inspector.origin}/ui/history?ns=${namespace}&path=/memories/notes.md&since=1h`);
    expect(await page.locator('tbody tr').count()).toBe(all);
    expect(await page.getByLabel('Since (UTC)').inputValue()).toMatch(
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/,
    );
    await page.goto(
      `${inspector.origin}/ui/history?ns=${namespace}&path=/memories/notes.md&until=${encodeURIComponent('2000-01-01T00:00:00Z')}`,
    );
    expect(await page.locator('main p').last().innerText()).toBe('No versions match.');

    // A bad time is refused by the server with a sentence, and nothing is listed.
    const bad = await page.goto(`${inspector.origin}/ui/history?ns=${namespace}&since=next%20tuesday`);
    expect(bad?.status()).toBe(400);
    expect(await page.locator('p.error').innerText()).toBe(
      '"Since" must be a date and time (2026-01-31T12:00, in UTC), an ISO 8601 time (2026-01-31T12:00:00Z), a time ago (30m, 2h, 7d), now, today or yesterday; got "next tuesday". Nothing was filtered.',
    );
    const backwards = await page.goto(
      `${inspector.origin}/ui/history?ns=${namespace}&since=2026-02-01T00:00&until=2026-01-01T00:00`,
    );
    expect(backwards?.status()).toBe(400);
    expect(await page.locator('p.error').innerText()).toBe(
      '"Since" is later than "Until": no version can match. Nothing was filtered.',
    );
    await context.close();
  });

  it("names the memory stores API's stores on the namespaces page, with their archived state", async () => {
    const registry = new Registry(() => inspector.store(REGISTRY_NAMESPACE));
    const made = (id: string, name: string, archived: string | null) => ({
      id,
      name,
      description: '',
      metadata: {},
      archived_at: archived,
      created_at: '2026-01-02T03:04:05.000Z',
      updated_at: '2026-01-02T03:04:05.000Z',
    });
    const active = newStoreId();
    const archived = newStoreId();
    await registry.create(made(active, 'Team notes', null));
    await registry.create(made(archived, 'Old project', '2026-02-03T04:05:06.000Z'));
    for (const id of [active, archived]) {
      await (await inspector.store(id)).execute(
        { command: 'create', path: '/memories/a.md', file_text: 'a\n' },
        {},
      );
    }
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, inspector.origin, TOKENS.ops);
    const table = await page
      .locator('tbody tr')
      .evaluateAll((rows) =>
        rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent ?? '')),
      );
    const cells = async (name: string) => (table.find((row) => row[0] === name) ?? []).slice(0, 3);
    expect(await cells(active)).toEqual([active, 'Team notes (active)', '1']);
    expect(await cells(archived)).toEqual([archived, 'Old project (archived 2026-02-03 04:05:06Z)', '1']);
    expect((await cells(namespace)).slice(0, 2)).toEqual([namespace, '-']);
    expect((await cells(REGISTRY_NAMESPACE)).slice(0, 2)).toEqual([
      REGISTRY_NAMESPACE,
      '(the registry of memory stores)',
    ]);
    await context.close();
  });

  it('shows a read-only token no change control and refuses its forged change', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, inspector.origin, TOKENS.reader);
    await page.goto(`${inspector.origin}/ui/history?ns=${namespace}&path=/memories/notes.md`);
    expect(await page.locator('tbody tr').count()).toBeGreaterThan(1);
    expect(
      await page.locator('a:text-is("restore"), a:text-is("redact"), form[action^="/ui/re"]').count(),
    ).toBe(0);
    const first = await page.locator('tbody tr').last().locator('td').nth(7).innerText();
    const before = await store.history({ path: '/memories/notes.md' });
    const csrf = await page.locator('input[name=csrf]').first().getAttribute('value');
    const forged = await context.request.post(`${inspector.origin}/ui/restore?ns=${namespace}`, {
      form: { version: first.trim(), csrf: csrf ?? '' },
      maxRedirects: 0,
    });
    expect(forged.status()).toBe(403);
    expect(await forged.text()).toContain('This token may only read: nothing was changed.');
    expect((await store.history({ path: '/memories/notes.md' })).versions.length).toBe(
      before.versions.length,
    );
    await context.close();
  });

  it('refuses a change without the CSRF token, or from another origin', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, inspector.origin, TOKENS.alice);
    const version = (await store.history({ path: '/memories/notes.md' })).versions.at(-1)!.id;
    const before = (await store.history({})).versions.length;
    const noToken = await context.request.post(`${inspector.origin}/ui/restore?ns=${namespace}`, {
      form: { version },
      maxRedirects: 0,
    });
    expect(noToken.status()).toBe(403);
    expect(await noToken.text()).toContain('This change did not come from this inspector: nothing was done.');
    const csrf = (await page.locator('input[name=csrf]').first().getAttribute('value')) ?? '';
    const elsewhere = await context.request.post(`${inspector.origin}/ui/restore?ns=${namespace}`, {
      form: { version, csrf },
      headers: { origin: 'http://attacker.example' },
      maxRedirects: 0,
    });
    expect(elsewhere.status()).toBe(403);
    expect((await store.history({})).versions.length).toBe(before);
    // Another namespace is not this token's to see.
    const other = await page.goto(`${inspector.origin}/ui/tree?ns=someone-else&path=/memories`);
    expect(other?.status()).toBe(404);
    await context.close();
  });
});
