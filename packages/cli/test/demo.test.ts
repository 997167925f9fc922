// memdir demo: the scripted session through the built CLI (the exact texts the model reads, the
// temporary folder gone afterwards, --keep, --store on memory: and file: stores, the refusal of a
// store that holds files), and the session and its printing in-process.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInMemoryStore } from '@memdir/core';
import { createFsStore } from '@memdir/fs';
import { afterEach, describe, expect, it } from 'vitest';
import { formatDemoEntry } from '../src/demo-format.js';
import { DEMO_SESSION, demoWrittenPaths, playDemoSession } from '../src/demo-session.js';
import { runCli, tempFolder } from './helpers.js';

const folders: Array<{ remove: () => Promise<void> }> = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await folder.remove();
});

async function folder(): Promise<string> {
  const made = await tempFolder();
  folders.push(made);
  return made.path;
}

const G = '  │ ';
const LISTING_HEADER =
  "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:";
const NOT_UNIQUE =
  'Error: No replacement was performed. Multiple occurrences of old_str `- [ ]` in lines: 5, 6. Please ensure it is unique';

/** The calls of the transcript whose exact lines every run prints, whatever the store. */
const EXPECTED_CALLS = [
  [
    '[1/12] Start of the task: Claude checks its memory before doing anything else',
    'tool_use  {"command":"view","path":"/memories"}',
    'tool_result',
    `${G}${LISTING_HEADER}`,
    `${G}0B\t/memories`,
  ],
  [
    '[3/12] It saves what it learned about the user',
    'tool_use  {"command":"create","path":"/memories/user-preferences.md","file_text":"# User preferences\\n- Prefers small, reviewable commits\\n- Uses pnpm, never npm\\n- Wants tests next to the code they cover\\n"}',
    'tool_result',
    `${G}File created successfully at: /memories/user-preferences.md`,
  ],
  [
    '[5/12] First item done: it ticks it off with str_replace',
    'tool_use  {"command":"str_replace","path":"/memories/progress/checkout-retry.md","old_str":"- [ ] Replace the fixed 500 ms delay with exponential backoff","new_str":"- [x] Replace the fixed 500 ms delay with exponential backoff (base 200 ms, factor 2)"}',
    'tool_result',
    `${G}The memory file has been edited. Here is the snippet showing the change (with line numbers):`,
    `${G}     2\t`,
    `${G}     3\t## Status`,
    `${G}     4\t- [x] Replace the fixed 500 ms delay with exponential backoff (base 200 ms, factor 2)`,
    `${G}     5\t- [ ] Cap retries at 5 attempts`,
    `${G}     6\t- [ ] Add a test for the retry cap`,
  ],
  [
    '[6/12] It found a gotcha worth remembering: insert a line at the end of the Notes section',
    'tool_use  {"command":"insert","path":"/memories/progress/checkout-retry.md","insert_line":10,"insert_text":"- retry.test.ts uses real timers: switch it to vi.useFakeTimers() first\\n"}',
    'tool_result',
    `${G}The file /memories/progress/checkout-retry.md has been edited.`,
  ],
  [
    '[7/12] Later, it re-reads only the status section, with view_range',
    'tool_use  {"command":"view","path":"/memories/progress/checkout-retry.md","view_range":[3,6]}',
    'tool_result',
    `${G}Here's the content of /memories/progress/checkout-retry.md with line numbers:`,
    `${G}     3\t## Status`,
    `${G}     4\t- [x] Replace the fixed 500 ms delay with exponential backoff (base 200 ms, factor 2)`,
    `${G}     5\t- [ ] Cap retries at 5 attempts`,
    `${G}     6\t- [ ] Add a test for the retry cap`,
  ],
  [
    '[8/12] A mistake the model makes: an old_str that is not unique',
    'tool_use  {"command":"str_replace","path":"/memories/progress/checkout-retry.md","old_str":"- [ ]","new_str":"- [x]"}',
    'tool_result (is_error: true)',
    `${G}${NOT_UNIQUE}`,
  ],
  [
    '[9/12] It reads the error and retries with the whole line',
    'tool_use  {"command":"str_replace","path":"/memories/progress/checkout-retry.md","old_str":"- [ ] Cap retries at 5 attempts","new_str":"- [x] Cap retries at 5 attempts"}',
    'tool_result',
    `${G}The memory file has been edited. Here is the snippet showing the change (with line numbers):`,
  ],
  [
    '[10/12] Task finished: it moves the progress note into an archive folder',
    'tool_use  {"command":"rename","old_path":"/memories/progress/checkout-retry.md","new_path":"/memories/archive/checkout-retry.md"}',
    'tool_result',
    `${G}Successfully renamed /memories/progress/checkout-retry.md to /memories/archive/checkout-retry.md`,
  ],
  [
    '[11/12] The scratch note is obsolete: it deletes it (its emptied folder goes too)',
    'tool_use  {"command":"delete","path":"/memories/scratch/retry-timings.md"}',
    'tool_result',
    `${G}Successfully deleted /memories/scratch/retry-timings.md`,
  ],
  [
    '[12/12] Before ending, it checks what it leaves for its next session',
    'tool_use  {"command":"view","path":"/memories"}',
    'tool_result',
    `${G}${LISTING_HEADER}`,
    `${G}497B\t/memories`,
    `${G}377B\t/memories/archive/`,
    `${G}377B\t/memories/archive/checkout-retry.md`,
    `${G}120B\t/memories/user-preferences.md`,
  ],
];

const FINAL_FILES = [
  'The store holds 2 files at the end:',
  '/memories/archive/checkout-retry.md (377 bytes)',
  `${G}# Task: make checkout retries safe`,
  `${G}`,
  `${G}## Status`,
  `${G}- [x] Replace the fixed 500 ms delay with exponential backoff (base 200 ms, factor 2)`,
  `${G}- [x] Cap retries at 5 attempts`,
  `${G}- [ ] Add a test for the retry cap`,
  `${G}`,
  `${G}## Notes`,
  `${G}- Retry logic lives in src/checkout/retry.ts`,
  `${G}- Run the tests with \`pnpm test --filter checkout\``,
  `${G}- retry.test.ts uses real timers: switch it to vi.useFakeTimers() first`,
  '/memories/user-preferences.md (120 bytes)',
  `${G}# User preferences`,
  `${G}- Prefers small, reviewable commits`,
  `${G}- Uses pnpm, never npm`,
  `${G}- Wants tests next to the code they cover`,
].join('\n');

/** Asserts the calls and the final files of a transcript, line for line. */
function expectTranscript(stdout: string): void {
  for (const call of EXPECTED_CALLS) expect(stdout).toContain(`\n\n${call.join('\n')}\n`);
  expect(stdout).toContain(`\n\n${FINAL_FILES}\n\n`);
  // Piped: no colour, no escape sequence of any kind.
  expect(stdout).not.toContain('\u001b');
}

describe('memdir demo', () => {
  it('plays the session in a temporary folder, prints the exact tool results, and removes the folder', async () => {
    const tmp = await folder();
    const result = await runCli(['demo'], { env: { TMPDIR: tmp } });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe(
      "memdir demo: a scripted session of Claude's memory tool (memory_20250818), offline",
    );
    const made =
      /^Store: (file:\/\/\/\S+\/(memdir-demo-\w+)) \(a temporary folder, removed at the end\)$/.exec(
        lines[1]!,
      );
    expect(made).not.toBeNull();
    expectTranscript(result.stdout);
    expect(
      result.stdout.endsWith(
        `\n\nThe temporary folder ${join(tmp, made![2]!)} is removed now (--keep keeps it).\n`,
      ),
    ).toBe(true);
    expect(await readdir(tmp)).toEqual([]);
  });

  it('--keep leaves the files in the temporary folder and says where', async () => {
    const tmp = await folder();
    const result = await runCli(['demo', '--keep'], { env: { TMPDIR: tmp } });
    expect(result.code).toBe(0);
    const [kept] = await readdir(tmp);
    expect(kept).toMatch(/^memdir-demo-/);
    const memories = join(tmp, kept!, 'memories');
    expect(result.stdout).toContain(
      `\nThe files stay in ${memories} (--keep): open them with any tool, e.g.\n  cat ${join(memories, 'archive', 'checkout-retry.md')}\n`,
    );
    expect(await readFile(join(memories, 'user-preferences.md'), 'utf8')).toBe(
      '# User preferences\n- Prefers small, reviewable commits\n- Uses pnpm, never npm\n- Wants tests next to the code they cover\n',
    );
    expect((await stat(join(memories, 'user-preferences.md'))).mode & 0o777).toBe(0o600);
  });

  it('--store memory: plays in this process', async () => {
    const tmp = await folder();
    const result = await runCli(['demo', '--store', 'memory:'], { env: { TMPDIR: tmp } });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[1]).toBe('Store: memory:');
    expectTranscript(result.stdout);
    expect(
      result.stdout.endsWith('\n\nThe files stay in memory:: memdir view --store URL shows them.\n'),
    ).toBe(true);
    expect(await readdir(tmp)).toEqual([]);
  });

  it('--store file: leaves the files there, and a second run refuses the store that now holds files', async () => {
    const dir = await folder();
    const first = await runCli(['demo', '--store', 'file:./memory'], { cwd: dir });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout.split('\n')[1]).toBe('Store: file:./memory');
    expectTranscript(first.stdout);
    const preferences = join(dir, 'memory', 'memories', 'user-preferences.md');
    const before = await readFile(preferences, 'utf8');

    const second = await runCli(['demo', '--store', 'file:./memory'], { cwd: dir });
    expect(second).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'memdir: demo: the store file:./memory already holds files, and the demo writes and deletes files\n' +
        'Play it in a new temporary folder (no --store), in an empty namespace (--namespace demo), or give --force to play it there anyway (it never replaces or deletes a file it did not write).\n',
    });
    // Even --force does not replace the files the session writes.
    const forced = await runCli(['demo', '--store', 'file:./memory', '--force'], { cwd: dir });
    expect(forced.code).toBe(2);
    expect(forced.stderr).toBe(
      'memdir: demo: the store file:./memory already has /memories/user-preferences.md, /memories/archive/checkout-retry.md, which the demo would replace\n' +
        'Play it in a new temporary folder (no --store) or in an empty namespace (--namespace demo).\n',
    );
    expect(await readFile(preferences, 'utf8')).toBe(before);
    expect(existsSync(join(dir, 'memory', 'memories', 'progress'))).toBe(false);

    // Another namespace of the same store is empty: the demo plays there.
    const other = await runCli(['demo', '--store', 'file:./memory', '--namespace', 'demo'], { cwd: dir });
    expect(other.code).toBe(0);
    expect(other.stdout.split('\n')[1]).toBe('Store: file:./memory, namespace demo');
    expectTranscript(other.stdout);
  });

  it('refuses a store that holds a file of yours, hidden ones too; --force plays beside them', async () => {
    const dir = await folder();
    await mkdir(join(dir, 'memory', 'memories'), { recursive: true });
    await writeFile(join(dir, 'memory', 'memories', '.mine.md'), 'my own note\n', { mode: 0o600 });
    const refused = await runCli(['demo', '--store', 'file:./memory'], { cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('memdir: demo: the store file:./memory already holds files');
    expect(await readdir(join(dir, 'memory', 'memories'))).toEqual(['.mine.md']);

    const forced = await runCli(['demo', '--store', 'file:./memory', '--force'], { cwd: dir });
    expect(forced.stderr).toBe('');
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('The store holds 3 files at the end:\n/memories/.mine.md (12 bytes)\n');
    expect(await readFile(join(dir, 'memory', 'memories', '.mine.md'), 'utf8')).toBe('my own note\n');
  });

  it('takes the store of $MEMDIR_STORE, and says so', async () => {
    const dir = await folder();
    const result = await runCli(['demo'], { cwd: dir, env: { MEMDIR_STORE: 'file:./env-store' } });
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[1]).toBe('Store: file:./env-store (from $MEMDIR_STORE)');
    expect(existsSync(join(dir, 'env-store', 'memories', 'user-preferences.md'))).toBe(true);
  });

  it('refuses --keep with a store, and an argument', async () => {
    expect(await runCli(['demo', '--store', 'memory:', '--keep'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'memdir: demo: --keep goes with the temporary folder: a store that was given keeps its files anyway\n' +
        'Run "memdir demo --help" for usage.\n',
    });
    const extra = await runCli(['demo', 'now']);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toBe(
      'memdir: demo: unexpected argument "now"\nRun "memdir demo --help" for usage.\n',
    );
  });

  it('has its help, and memdir --help lists it', async () => {
    const help = await runCli(['demo', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout.startsWith('Usage: memdir demo [--keep]\n')).toBe(true);
    expect((await runCli(['--help'])).stdout).toContain(
      "\n  demo                             watch a scripted session of Claude's memory tool, offline\n",
    );
  });
});

describe('the demo session', () => {
  it('covers every command of the tool, view_range, and one error it recovers from', async () => {
    const commands = new Set(DEMO_SESSION.map((step) => step.input['command']));
    expect([...commands].sort()).toEqual(['create', 'delete', 'insert', 'rename', 'str_replace', 'view']);
    const entries = await playDemoSession(createInMemoryStore());
    const errors = entries.filter((entry) => entry.isError);
    expect(errors.map((entry) => entry.content)).toEqual([NOT_UNIQUE]);
    const next = entries[entries.indexOf(errors[0]!) + 1]!;
    expect(next.isError).toBe(false);
    expect(next.step.input['command']).toBe('str_replace');
  });

  it('gives Claude the same text on the filesystem store as on the in-memory reference store', async () => {
    const root = await folder();
    const store = createFsStore({ root });
    try {
      const onDisk = await playDemoSession(store);
      const inMemory = await playDemoSession(createInMemoryStore());
      expect(onDisk.map(({ content, isError }) => ({ content, isError }))).toEqual(
        inMemory.map(({ content, isError }) => ({ content, isError })),
      );
    } finally {
      await store.close();
    }
  });

  it('names the paths it writes', () => {
    expect(demoWrittenPaths()).toEqual([
      '/memories/progress/checkout-retry.md',
      '/memories/user-preferences.md',
      '/memories/scratch/retry-timings.md',
      '/memories/archive/checkout-retry.md',
    ]);
  });

  it('on a terminal, colours the labels and escapes control characters a store gave back', () => {
    const entry = {
      step: { caption: 'Look', input: { command: 'view', path: '/memories' } },
      content: 'a\u001b]0;title\u0007\n0B\tb',
      isError: true,
    };
    expect(formatDemoEntry(entry, 0, 3)).toBe(
      [
        '[1/3] Look',
        'tool_use  {"command":"view","path":"/memories"}',
        'tool_result (is_error: true)',
        `${G}a\u001b]0;title\u0007`,
        `${G}0B\tb`,
      ].join('\n'),
    );
    expect(formatDemoEntry(entry, 0, 3, { colour: true, escape: true })).toBe(
      [
        '\u001b[1m[1/3] Look\u001b[22m',
        '\u001b[36mtool_use\u001b[39m  {"command":"view","path":"/memories"}',
        '\u001b[31mtool_result (is_error: true)\u001b[39m',
        `\u001b[2m${G}\u001b[22ma\\x1b]0;title\\x07`,
        `\u001b[2m${G}\u001b[22m0B\tb`,
      ].join('\n'),
    );
  });
});
