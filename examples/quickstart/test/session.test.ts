import { createInMemoryStore } from '@memdir/core';
import { describe, expect, it } from 'vitest';
import { choosePalette, formatEntry, formatTranscript } from '../src/format.js';
import { session } from '../src/session.js';
import { runSession } from '../src/transcript.js';

const frame = { storeLabel: 'test', filesDir: 'memory/memories', sampleFile: 'archive/checkout-retry.md' };

describe('quickstart session', () => {
  it('starts with an empty /memories listing, as Claude sees it on a new store', async () => {
    const [first] = await runSession(createInMemoryStore(), session);
    expect(first!.isError).toBe(false);
    expect(first!.content).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories",
    );
  });

  it('shows the non-unique old_str mistake as the exact error text, marked is_error', async () => {
    const entries = await runSession(createInMemoryStore(), session);
    const errors = entries.filter((entry) => entry.isError);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.step.input).toMatchObject({ command: 'str_replace', old_str: '- [ ]' });
    expect(errors[0]!.content).toBe(
      'Error: No replacement was performed. Multiple occurrences of old_str `- [ ]` in lines: 5, 6. Please ensure it is unique',
    );
  });

  it('covers every command of the tool, and view_range', () => {
    const commands = new Set(session.map((step) => step.input['command']));
    expect([...commands].sort()).toEqual(['create', 'delete', 'insert', 'rename', 'str_replace', 'view']);
    expect(session.some((step) => Array.isArray(step.input['view_range']))).toBe(true);
  });

  it('shows the status section through view_range, with the edits applied', async () => {
    const entries = await runSession(createInMemoryStore(), session);
    const ranged = entries.find((entry) => entry.step.input['view_range'] !== undefined)!;
    expect(ranged.content).toBe(
      [
        "Here's the content of /memories/progress/checkout-retry.md with line numbers:",
        '     3\t## Status',
        '     4\t- [x] Replace the fixed 500 ms delay with exponential backoff (base 200 ms, factor 2)',
        '     5\t- [ ] Cap retries at 5 attempts',
        '     6\t- [ ] Add a test for the retry cap',
      ].join('\n'),
    );
  });

  it('ends with the archive and the preferences, and without the deleted scratch folder', async () => {
    const entries = await runSession(createInMemoryStore(), session);
    const last = entries.at(-1)!;
    expect(last.isError).toBe(false);
    const paths = last.content
      .split('\n')
      .slice(1)
      .map((line) => line.split('\t')[1]);
    expect(paths).toEqual([
      '/memories',
      '/memories/archive/',
      '/memories/archive/checkout-retry.md',
      '/memories/user-preferences.md',
    ]);
  });

  it('prints the same transcript on every run', async () => {
    const first = formatTranscript(await runSession(createInMemoryStore(), session), frame);
    const second = formatTranscript(await runSession(createInMemoryStore(), session), frame);
    expect(second).toBe(first);
    expect(first).toContain('tool_result (is_error: true)');
    expect(first).toContain('The memory files are on disk in memory/memories/');
  });
});

describe('formatEntry', () => {
  it('prints the input as compact JSON and each result line, TABs kept, behind a gutter', () => {
    const text = formatEntry(
      {
        step: { caption: 'Look', input: { command: 'view', path: '/memories' } },
        content: 'a\n0B\tb',
        isError: false,
      },
      0,
      3,
    );
    expect(text).toBe(
      [
        '[1/3] Look',
        'tool_use  {"command":"view","path":"/memories"}',
        'tool_result',
        '  │ a',
        '  │ 0B\tb',
      ].join('\n'),
    );
  });
});

describe('choosePalette', () => {
  const sample = (palette: ReturnType<typeof choosePalette>) => palette.red('x');
  it('colours a terminal, and nothing when piped, with NO_COLOR or with FORCE_COLOR=0', () => {
    expect(sample(choosePalette({ isTTY: true }, {}))).toBe('\u001b[31mx\u001b[39m');
    expect(sample(choosePalette({ isTTY: false }, {}))).toBe('x');
    expect(sample(choosePalette({ isTTY: true }, { NO_COLOR: '1' }))).toBe('x');
    expect(sample(choosePalette({ isTTY: true }, { FORCE_COLOR: '0' }))).toBe('x');
    expect(sample(choosePalette({ isTTY: false }, { FORCE_COLOR: '1' }))).toBe('\u001b[31mx\u001b[39m');
  });
});
