// memdir completion: the bash script run in a real bash (zsh runs the same function through
// bashcompinit), every flag it offers accepted by its command, and the shells' scripts printed.
import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { completionScript, completionTable } from '../src/completion.js';
import { run } from '../src/main.js';
import { BIN, runCli, tempFolder } from './helpers.js';

const folders: Array<{ remove: () => Promise<void> }> = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await folder.remove();
});

/** What bash completes for the command line `words` (the cursor on the last word), in `cwd`. */
function complete(words: string[], cwd?: string): string[] {
  const script = [
    `source <("${process.execPath}" "${BIN}" completion bash)`,
    `COMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')})`,
    `COMP_CWORD=${words.length - 1}`,
    '_memdir',
    `printf '%s\\n' "\${COMPREPLY[@]}"`,
  ].join('\n');
  const output = execFileSync('bash', ['-c', script], {
    encoding: 'utf8',
    ...(cwd === undefined ? {} : { cwd }),
  });
  return output.split('\n').filter((line) => line !== '');
}

/** Runs the CLI in this process, for the many parser checks. */
async function inProcess(argv: string[]): Promise<{ code: number; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let errors = '';
  stdout.resume();
  stderr.setEncoding('utf8').on('data', (chunk: string) => {
    errors += chunk;
  });
  const code = await run(argv, { stdin: new PassThrough(), stdout, stderr, env: {}, cwd: process.cwd() });
  return { code, stderr: errors };
}

describe('memdir completion', () => {
  it('bash completes commands, the flags of the command on the line, and file names', async () => {
    expect(complete(['memdir', 'vi'])).toEqual(['view']);
    expect(complete(['memdir', 'sy'])).toEqual(['sync']);
    expect(complete(['memdir', 'sync', '--de'])).toEqual(['--delete-delay', '--deletions']);
    expect(complete(['memdir', 'init', '--'])).toEqual([
      '--store',
      '--namespace',
      '--force',
      '--json',
      '--help',
    ]);
    // The store's URL is a value, not the command.
    expect(complete(['memdir', '--store', 'file:./x', 'log', '--si'])).toEqual(['--since']);
    expect(complete(['memdir', 'help', 'compl'])).toEqual(['completion']);
    expect(complete(['memdir', '--ver'])).toEqual(['--version']);

    const folder = await tempFolder();
    folders.push(folder);
    await mkdir(join(folder.path, 'notes-folder'));
    expect(complete(['memdir', 'sync', 'notes'], folder.path)).toEqual(['notes-folder']);
  });

  it('every flag offered is one its command accepts, and every command offered exists', async () => {
    const table = completionTable();
    expect([...table.keys()]).toEqual(
      expect.arrayContaining(['view', 'serve', 'sync', 'log', 'init', 'completion']),
    );
    for (const [command, flags] of table) {
      if (command === 'help') continue;
      // A command that does not exist says "unknown command"; a flag it lacks, "unknown option".
      const known = await inProcess([command, '--help']);
      expect(known.stderr, command).not.toMatch(/unknown command/);
      for (const flag of flags) {
        const result = await inProcess([command, flag, '--help']);
        expect(result.stderr, `${command} ${flag}`).not.toMatch(/unknown option/i);
      }
    }
  });

  it('zsh loads the bash function through bashcompinit; fish gets one complete line per flag', () => {
    const bash = completionScript('bash');
    const zsh = completionScript('zsh');
    expect(zsh).toContain('autoload -U +X bashcompinit && bashcompinit\n');
    expect(zsh.endsWith(bash.slice(bash.indexOf('\n') + 1))).toBe(true);

    const fish = completionScript('fish').split('\n');
    expect(fish).toContain("complete -c memdir -n '__fish_seen_subcommand_from sync' -l delete-delay");
    expect(fish).toContain("complete -c memdir -n '__fish_seen_subcommand_from view' -l range");
    const commands = [...completionTable().keys()].join(' ');
    expect(fish).toContain(`complete -c memdir -n __fish_use_subcommand -a '${commands}'`);
  });

  it('an unknown shell is a usage error that names the three', async () => {
    const result = await runCli(['completion', 'powershell']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'memdir: completion: no completion for "powershell": give bash, zsh or fish\nRun "memdir completion --help" for usage.\n',
    );
    const none = await runCli(['completion']);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(
      'memdir: completion: missing argument\nRun "memdir completion --help" for usage.\n',
    );
  });
});
