import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, cliEnv, runCli, tempFolder } from './helpers.js';

let folder: { path: string; remove: () => Promise<void> };

beforeEach(async () => {
  folder = await tempFolder();
});

afterEach(async () => {
  await folder.remove();
});

/** Runs the CLI in the temporary folder, on its default store (file:./memory). */
function memdir(args: readonly string[], input?: string) {
  return runCli(args, { cwd: folder.path, ...(input === undefined ? {} : { input }) });
}

/** The commands `memdir --help` lists, each with a usage of its own. */
const HELPED_COMMANDS = [
  'view',
  'create',
  'str_replace',
  'insert',
  'delete',
  'rename',
  'exec',
  'serve',
  'conformance',
  'sync',
  'init',
  'demo',
  'completion',
  'ui',
  'stores',
  'config',
] as const;
describe('memory commands on the default file: store', () => {
  it('create writes ./memory/memories/{path} and prints the result the model reads', async () => {
    const result = await memdir(['create', '/memories/notes.md', '--text', 'Likes tea\nHates rain']);
    expect(result).toEqual({
      code: 0,
      stdout: 'File created successfully at: /memories/notes.md\n',
      stderr: '',
    });
    expect(await readFile(join(folder.path, 'memory/memories/notes.md'), 'utf8')).toBe(
      'Likes tea\nHates rain',
    );
  });

  it('view lists /memories by default, and a file with line numbers', async () => {
    await memdir(['create', '/memories/notes.md', '--text', 'Likes tea\nHates rain']);
    expect(await memdir(['view'])).toEqual({
      code: 0,
      stdout:
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n" +
        '20B\t/memories\n20B\t/memories/notes.md\n',
      stderr: '',
    });
    expect(await memdir(['view', '/memories/notes.md'])).toEqual({
      code: 0,
      stdout:
        "Here's the content of /memories/notes.md with line numbers:\n     1\tLikes tea\n     2\tHates rain\n",
      stderr: '',
    });
  });

  it('view --range shows the lines asked for; -1 reads to the end', async () => {
    await memdir(['create', '/memories/n.md', '--text', 'a\nb\nc\nd']);
    expect((await memdir(['view', '/memories/n.md', '--range', '2,3'])).stdout).toBe(
      "Here's the content of /memories/n.md with line numbers:\n     2\tb\n     3\tc\n",
    );
    expect((await memdir(['view', '/memories/n.md', '-r', '3,-1'])).stdout).toBe(
      "Here's the content of /memories/n.md with line numbers:\n     3\tc\n     4\td\n",
    );
  });

  it('a failed command exits 1 with "Error: {message}" on stderr and nothing on stdout', async () => {
    // A store that exists (on a missing one, stderr would also say that the store is empty).
    expect((await memdir(['create', '/memories/seed.md', '--text', 'x'])).code).toBe(0);
    expect(await memdir(['view', '/memories/missing.md'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error: The path /memories/missing.md does not exist. Please provide a valid path.\n',
    });
    expect(await memdir(['delete', '/memories'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error: Cannot delete the /memories directory itself\n',
    });
    expect(await memdir(['view', '/etc/passwd'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error: Path must start with /memories, got: /etc/passwd\n',
    });
  });

  it('view --range past the end is the engine error; a bad start is INVALID_INPUT text', async () => {
    await memdir(['create', '/memories/n.md', '--text', 'a']);
    const result = await memdir(['view', '/memories/n.md', '--range', '0,1']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^Error: .+\n$/);
  });

  it('str_replace replaces and prints the snippet; omitting --new deletes old_str', async () => {
    await memdir(['create', '/memories/n.md', '--text', 'Likes tea\nHates rain']);
    expect(await memdir(['str_replace', '/memories/n.md', '--old', 'tea', '--new', 'coffee'])).toEqual({
      code: 0,
      stdout:
        'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n' +
        '     1\tLikes coffee\n     2\tHates rain\n',
      stderr: '',
    });
    expect((await memdir(['str-replace', '/memories/n.md', '--old', ' coffee'])).code).toBe(0);
    expect(await readFile(join(folder.path, 'memory/memories/n.md'), 'utf8')).toBe('Likes\nHates rain');
  });

  it('str_replace with several matches reports their lines', async () => {
    await memdir(['create', '/memories/n.md', '--text', 'aa\na']);
    expect(await memdir(['str_replace', '/memories/n.md', '--old', 'a', '--new', 'b'])).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'Error: No replacement was performed. Multiple occurrences of old_str `a` in lines: 1, 1, 2. Please ensure it is unique\n',
    });
  });

  it('insert takes --text, --file or - (stdin)', async () => {
    await memdir(['create', '/memories/n.md', '--text', 'two']);
    expect(await memdir(['insert', '/memories/n.md', '--line', '0', '--text', 'one'])).toEqual({
      code: 0,
      stdout: 'The file /memories/n.md has been edited.\n',
      stderr: '',
    });
    await writeFile(join(folder.path, 'three.txt'), 'three\n');
    expect((await memdir(['insert', '/memories/n.md', '-l', '2', '--file', 'three.txt'])).code).toBe(0);
    expect((await memdir(['insert', '/memories/n.md', '--line', '3', '-'], 'four\n')).code).toBe(0);
    expect(await readFile(join(folder.path, 'memory/memories/n.md'), 'utf8')).toBe('one\ntwo\nthree\nfour');
  });

  it('insert out of range gives the protocol message', async () => {
    await memdir(['create', '/memories/n.md', '--text', 'a\nb']);
    expect(await memdir(['insert', '/memories/n.md', '--line', '5', '--text', 'x'])).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'Error: Invalid `insert_line` parameter: 5. It should be within the range of lines of the file: [0, 2]\n',
    });
  });

  it('create reads the content from stdin with - and from a file with --file', async () => {
    expect((await memdir(['create', '/memories/a.md', '-'], 'from stdin\n')).code).toBe(0);
    await mkdir(join(folder.path, 'in'));
    await writeFile(join(folder.path, 'in/b.txt'), 'from a file');
    expect((await memdir(['create', '/memories/b.md', '-f', 'in/b.txt'])).code).toBe(0);
    expect(await readFile(join(folder.path, 'memory/memories/a.md'), 'utf8')).toBe('from stdin\n');
    expect(await readFile(join(folder.path, 'memory/memories/b.md'), 'utf8')).toBe('from a file');
  });

  it('rename and delete', async () => {
    await memdir(['create', '/memories/a.md', '--text', 'x']);
    expect(await memdir(['rename', '/memories/a.md', '/memories/dir/b.md'])).toEqual({
      code: 0,
      stdout: 'Successfully renamed /memories/a.md to /memories/dir/b.md\n',
      stderr: '',
    });
    expect(await memdir(['rename', '/memories/gone.md', '/memories/c.md'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error: The path /memories/gone.md does not exist\n',
    });
    expect(await memdir(['delete', '/memories/dir'])).toEqual({
      code: 0,
      stdout: 'Successfully deleted /memories/dir\n',
      stderr: '',
    });
  });

  it('--no-overwrite makes create refuse an existing file', async () => {
    await memdir(['create', '/memories/a.md', '--text', 'x']);
    expect(await memdir(['create', '/memories/a.md', '--text', 'y', '--no-overwrite'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error: File /memories/a.md already exists\n',
    });
    expect((await memdir(['create', '/memories/a.md', '--text', 'y', '--overwrite'])).code).toBe(0);
  });

  it('--max-file-bytes is enforced as TOO_LARGE', async () => {
    const result = await memdir(['create', '/memories/a.md', '--text', 'abcdef', '--max-file-bytes', '5']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Error: .*5 bytes.*\n$/);
  });

  it('--max-view-chars truncates a listing', async () => {
    await memdir(['create', '/memories/a.md', '--text', 'aaaa']);
    await memdir(['create', '/memories/b.md', '--text', 'bbbb']);
    const result = await memdir(['view', '--max-view-chars', '40']);
    expect(result.stdout).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n" +
        '8B\t/memories\n4B\t/memories/a.md\n' +
        '[Listing truncated: 1 of 2 entries shown. View a subdirectory to see the rest.]\n',
    );
  });

  it('--namespace keeps stores apart on one folder', async () => {
    await memdir(['create', '/memories/a.md', '--text', 'x', '--namespace', 'alice']);
    expect((await memdir(['view', '/memories/a.md', '--namespace', 'bob'])).code).toBe(1);
    expect((await memdir(['view', '/memories/a.md', '--namespace', 'alice'])).code).toBe(0);
    expect((await memdir(['view', '/memories/a.md'])).code).toBe(1);
  });

  it('--store file:DIR, an absolute file:/// URL and MEMDIR_STORE pick the folder', async () => {
    await memdir(['create', '/memories/a.md', '--text', 'one', '--store', 'file:./elsewhere']);
    expect(await readFile(join(folder.path, 'elsewhere/memories/a.md'), 'utf8')).toBe('one');
    await memdir(['create', '/memories/b.md', '--text', 'two', '--store', `file://${folder.path}/abs`]);
    expect(await readFile(join(folder.path, 'abs/memories/b.md'), 'utf8')).toBe('two');
    const viaEnv = await runCli(['view', '/memories/a.md'], {
      cwd: folder.path,
      env: { MEMDIR_STORE: 'file:elsewhere' },
    });
    expect(viaEnv.stdout).toBe("Here's the content of /memories/a.md with line numbers:\n     1\tone\n");
  });

  it('the store options may come before the command', async () => {
    const result = await memdir(['--store', 'memory:', 'view']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories\n",
    );
  });
});

describe('usage errors exit 2 with "memdir: ..." on stderr', () => {
  it.each([
    [['bogus'], 'memdir: unknown command "bogus"\n'],
    [
      ['create', '/memories/a.md'],
      'memdir: create: give the text with exactly one of --text TEXT, --file FILE, or - (stdin)\n',
    ],
    [
      ['create', '/memories/a.md', '--text', 'a', '--file', 'b'],
      'memdir: create: give the text with exactly one of --text TEXT, --file FILE, or - (stdin)\n',
    ],
    [['create', '/memories/a.md', 'extra', '--text', 'a'], 'memdir: create: unexpected argument "extra"\n'],
    [['--store', 'memory:'], 'memdir: no command given\n'],
    [['str_replace', '/memories/a.md'], 'memdir: str_replace: --old TEXT is required\n'],
    [['insert', '/memories/a.md', '--text', 'x'], 'memdir: insert: --line N is required\n'],
    [
      ['insert', '/memories/a.md', '--line', 'two', '--text', 'x'],
      'memdir: insert: --line expects a number, got "two"\n',
    ],
    [
      ['view', '/memories/a.md', '--range', '1'],
      'memdir: view: --range expects START,END (e.g. 1,5 or 3,-1), got "1"\n',
    ],
    [['rename', '/memories/a.md'], 'memdir: rename: missing argument\n'],
    [['delete', '/memories/a', '/memories/b'], 'memdir: delete: unexpected argument "/memories/b"\n'],
    [['view', '--max-view-chars', '0'], 'memdir: --max-view-chars expects a positive integer, got "0"\n'],
    [
      ['view', '--overwrite', '--no-overwrite'],
      'memdir: --overwrite and --no-overwrite contradict each other\n',
    ],
  ])('memdir %j', async (args, firstLine) => {
    const result = await memdir(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.slice(0, result.stderr.indexOf('\n') + 1)).toBe(firstLine);
  });

  it('an unknown flag names the flag in a sentence of our own (no unbalanced quote, nothing about --)', async () => {
    const result = await memdir(['view', '--colour']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'memdir: view: unknown option --colour\nRun "memdir view --help" for usage.\n',
    );
  });

  it('a mistyped command or flag gets the nearest one suggested; a flag without its value says so', async () => {
    const command = await memdir(['veiw', '/memories']);
    expect(command.code).toBe(2);
    expect(command.stderr).toBe(
      'memdir: unknown command "veiw"\nDid you mean "memdir view"? Run "memdir --help" for usage.\n',
    );
    const flag = await memdir(['view', '--stor', 'memory:']);
    expect(flag.stderr).toBe(
      'memdir: view: unknown option --stor\nDid you mean --store? Run "memdir view --help" for usage.\n',
    );
    const missing = await memdir(['view', '--store']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('memdir: view: --store needs a value\nRun "memdir view --help" for usage.\n');
    const far = await memdir(['qqqqqq']);
    expect(far.stderr).toBe('memdir: unknown command "qqqqqq"\nRun "memdir --help" for usage.\n');
  });

  it('a reader that stops reading ends the run quietly with status 141 (128 + SIGPIPE), no stack trace', async () => {
    const folder = await tempFolder();
    try {
      const files = join(folder.path, 'store/memories');
      await mkdir(files, { recursive: true });
      for (let index = 0; index < 200; index++) {
        await writeFile(join(files, `f${index}.md`), 'line\n'.repeat(200));
      }
      const outcome = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          [BIN, 'export', '--store', `file:${join(folder.path, 'store')}`],
          {
            env: cliEnv(),
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
          stderr += chunk;
        });
        // Read the first chunk, then stop reading, as `head -c 100` does.
        child.stdout.once('data', () => child.stdout.destroy());
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stderr }));
      });
      expect(outcome).toEqual({ code: 141, stderr: '' });
    } finally {
      await folder.remove();
    }
  });

  it('an invalid namespace is refused before anything runs', async () => {
    const result = await memdir(['view', '--namespace', '../x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^memdir: Invalid @memdir\/core option namespace: "\.\.\/x"/);
  });

  it('no command prints the help on stderr', async () => {
    const result = await memdir([]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Usage: memdir <command>');
  });
});

describe('--help and --version', () => {
  it('--version prints the package version', async () => {
    const { version } = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(await memdir(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('memdir --help lists every command', async () => {
    const result = await memdir(['--help']);
    expect(result.code).toBe(0);
    for (const command of HELPED_COMMANDS) {
      expect(result.stdout).toContain(`  ${command}`);
    }
  });

  it('memdir --help lists the store options and limits, with their defaults', async () => {
    const { stdout } = await memdir(['--help']);
    expect(stdout).toContain(
      '      --max-file-bytes N   largest file create/str_replace/insert may write (default: 1048576)\n',
    );
    expect(stdout).toContain(
      '      --max-view-chars N   most characters one view shows before truncating (default: 16000)\n',
    );
    for (const option of ['--store URL', '--namespace NAME', '--no-overwrite', '--version']) {
      expect(stdout).toContain(option);
    }
    expect(stdout).not.toContain('the limits below');
  });

  it.each(HELPED_COMMANDS)('memdir %s --help and memdir help COMMAND print its usage', async (command) => {
    const result = await memdir([command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(new RegExp(`^Usage: memdir ${command}`));
    expect(await memdir(['help', command])).toEqual(result);
  });
});
