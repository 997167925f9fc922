import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempFolder } from './helpers.js';

const lines = (...inputs: unknown[]) =>
  inputs.map((input) => (typeof input === 'string' ? input : JSON.stringify(input))).join('\n');

describe('memdir exec', () => {
  it('runs JSON lines in order and prints one JSON result per line', async () => {
    const result = await runCli(['--store', 'memory:', 'exec'], {
      input: `${lines(
        { command: 'create', path: '/memories/a.md', file_text: 'hi' },
        { command: 'str_replace', path: '/memories/a.md', old_str: 'hi', new_str: 'hello' },
        { command: 'view', path: '/memories/a.md' },
      )}\n`,
    });
    expect(result).toEqual({
      code: 0,
      stdout:
        '{"ok":true,"text":"File created successfully at: /memories/a.md"}\n' +
        '{"ok":true,"text":"The memory file has been edited. Here is the snippet showing the change (with line numbers):\\n     1\\thello"}\n' +
        '{"ok":true,"text":"Here\'s the content of /memories/a.md with line numbers:\\n     1\\thello"}\n',
      stderr: '',
    });
  });

  it('keeps going after a failed line, skips blank lines, and exits 1 at the end', async () => {
    const result = await runCli(['exec', '--store', 'memory:'], {
      input: lines(
        { command: 'view', path: '/memories/nope.md' },
        'not json',
        '',
        { command: 'launch' },
        { command: 'create', path: '/memories/b.md', file_text: 'x' },
        { command: 'delete', path: '/memories' },
        { command: 'view', path: '/memories/b.md' },
      ),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    const out = result.stdout.split('\n');
    expect(out.pop()).toBe('');
    expect(out).toHaveLength(6);
    expect(JSON.parse(out[0]!)).toEqual({
      ok: false,
      code: 'NOT_FOUND',
      text: 'Error: The path /memories/nope.md does not exist. Please provide a valid path.',
    });
    expect(JSON.parse(out[1]!)).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
    expect(JSON.parse(out[1]!).text).toMatch(/^Error: Line 2 is not valid JSON: /);
    expect(JSON.parse(out[2]!)).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
    expect(JSON.parse(out[3]!)).toEqual({ ok: true, text: 'File created successfully at: /memories/b.md' });
    expect(JSON.parse(out[4]!)).toEqual({
      ok: false,
      code: 'ROOT_PROTECTED',
      text: 'Error: Cannot delete the /memories directory itself',
    });
    expect(JSON.parse(out[5]!)).toEqual({
      ok: true,
      text: "Here's the content of /memories/b.md with line numbers:\n     1\tx",
    });
  });

  it('empty input prints nothing and exits 0', async () => {
    expect(await runCli(['exec', '--store', 'memory:'], { input: '' })).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
  });

  it('writes through to the file: store', async () => {
    const folder = await tempFolder();
    try {
      const result = await runCli(['exec'], {
        cwd: folder.path,
        input: lines({ command: 'create', path: '/memories/x/y.md', file_text: 'kept' }),
      });
      expect(result.code).toBe(0);
      expect(await readFile(join(folder.path, 'memory/memories/x/y.md'), 'utf8')).toBe('kept');
    } finally {
      await folder.remove();
    }
  });
});
