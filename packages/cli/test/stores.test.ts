// memdir stores: the memory stores API's stores on a store URL, through the built CLI, on the
// filesystem store and on PostgreSQL; a store's memories are its namespace's files.
import { databaseUrl } from '@memdir/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempFolder } from './helpers.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const folders: Array<{ remove: () => Promise<void> }> = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await folder.remove();
});

async function fileStore(): Promise<{ cwd: string; store: string }> {
  const folder = await tempFolder();
  folders.push(folder);
  return { cwd: folder.path, store: 'file:./memory' };
}

describe.each([
  ['the filesystem store', fileStore],
  [
    'PostgreSQL',
    async () => {
      const folder = await tempFolder();
      folders.push(folder);
      const url = new URL(databaseUrl());
      url.searchParams.set('schema', `cli_stores_${process.pid}_${Date.now()}`);
      return { cwd: folder.path, store: url.href };
    },
  ],
])('memdir stores on %s', (_label, place) => {
  it('creates, lists, shows, archives and deletes a store; its memories are its namespace', async () => {
    const { cwd, store } = await place();
    const stores = (...args: string[]) => runCli(['stores', ...args, '--store', store], { cwd });

    const created = await stores(
      'create',
      'Support agent',
      '--description',
      'the bot',
      '--metadata',
      'team=support',
      '--json',
    );
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const object = JSON.parse(created.stdout) as { id: string; created_at: string };
    expect(object).toEqual({
      id: expect.stringMatching(/^memstore_[0-9a-z]{26}$/),
      type: 'memory_store',
      name: 'Support agent',
      description: 'the bot',
      metadata: { team: 'support' },
      archived_at: null,
      created_at: expect.stringMatching(ISO),
      updated_at: object.created_at,
    });
    const id = object.id;

    // The memory tool writes into the store's namespace; the store counts it.
    const written = await runCli(
      ['create', '/memories/a.md', '--text', 'hello', '--namespace', id, '--store', store],
      { cwd },
    );
    expect(written.stdout).toBe('File created successfully at: /memories/a.md\n');
    const shown = await stores('show', id);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toBe(
      [
        `id             ${id}`,
        'name           Support agent',
        'description    the bot',
        `created        ${object.created_at}`,
        `updated        ${object.created_at}`,
        'archived       -',
        'metadata.team  support',
        'memories       1',
        'bytes          5',
        'versions       1',
        '',
      ].join('\n'),
    );

    const listed = await stores('list');
    expect(listed.stdout).toBe(
      `${'ID'.padEnd(id.length)}  ${'NAME'.padEnd(13)}  ${'CREATED'.padEnd(24)}  ARCHIVED\n` +
        `${id}  Support agent  ${object.created_at}  -\n`,
    );

    const archived = await stores('archive', id, '--json');
    expect(JSON.parse(archived.stdout).archived_at).toMatch(ISO);
    // Archived stores are listed only when asked for.
    const active = await stores('list');
    expect(active.stdout).toBe('');
    expect(active.stderr).toMatch(/^memdir: stores: \S+ has no memory store\n$/);
    expect(
      (await stores('list', '--include-archived', '--json')).stdout.split('\n').filter(Boolean),
    ).toHaveLength(1);

    const refused = await stores('delete', id);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `memdir: stores: deleting memory store ${id} erases its memories and versions for good: give --yes to confirm\n` +
        'On a terminal, stores delete asks instead.\n',
    );
    const deleted = await stores('delete', id, '--yes');
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toBe(
      `deleted memory store ${id} (Support agent): its memories and versions are erased\n`,
    );
    const gone = await stores('show', id);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toBe(`memdir: stores: No memory store has the id "${id}".\n`);
    const view = await runCli(['view', '/memories/a.md', '--namespace', id, '--store', store], { cwd });
    expect(view.code).toBe(1);
  });
});

describe('memdir stores refuses what it cannot do', () => {
  it('names the problem, exit 2 for usage and 1 for what the API refuses', async () => {
    const { cwd, store } = await fileStore();
    const none = await runCli(['stores', '--store', store], { cwd });
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(
      'memdir: stores: give list, create, show, archive, delete\nRun "memdir stores --help" for usage.\n',
    );
    const metadata = await runCli(['stores', 'create', 'x', '--metadata', 'novalue', '--store', store], {
      cwd,
    });
    expect(metadata.code).toBe(2);
    expect(metadata.stderr).toBe(
      'memdir: stores: --metadata expects KEY=VALUE, got "novalue"\nRun "memdir stores --help" for usage.\n',
    );
    const empty = await runCli(['stores', 'create', '', '--store', store], { cwd });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toBe('memdir: stores: name must be a string of 1 to 255 characters.\n');
    const missing = await runCli(['stores', 'show', 'memstore_nope', '--store', store], { cwd });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('memdir: stores: No memory store has the id "memstore_nope".\n');
  });
});
