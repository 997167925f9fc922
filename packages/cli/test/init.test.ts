// memdir init: the project's .mcp.json, the store's folder and .gitignore, through the built CLI;
// the server it configures is started as Claude Code starts it and answers the memory tool.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cliEnv, runCli, tempFolder } from './helpers.js';

const folders: Array<{ remove: () => Promise<void> }> = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await folder.remove();
});

async function project(): Promise<string> {
  const folder = await tempFolder();
  folders.push(folder);
  return folder.path;
}

const read = (path: string) => readFile(path, 'utf8');
const NEXT = 'Next: start Claude Code in this folder and approve the "memdir" server; /mcp shows it.\n';
const IGNORE_NOTE = "# memdir's memory (memdir init): share memories through a store, not git\n";

describe('memdir init', () => {
  it('adds the memdir server to .mcp.json, makes the store folder and keeps it out of git; the server answers', async () => {
    const dir = await project();
    const result = await runCli(['init'], { cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `memdir init: added the "memdir" server in ${join(dir, '.mcp.json')} (memdir serve --store file:./memory)\n` +
        `memdir init: made the store's folder ${join(dir, 'memory')}\n` +
        `memdir init: added /memory/ to ${join(dir, '.gitignore')}\n${NEXT}`,
    );
    expect(JSON.parse(await read(join(dir, '.mcp.json')))).toEqual({
      mcpServers: { memdir: { command: 'npx', args: ['-y', 'memdir', 'serve', '--store', 'file:./memory'] } },
    });
    expect(await read(join(dir, '.gitignore'))).toBe(`${IGNORE_NOTE}/memory/\n`);
    expect(existsSync(join(dir, 'memory'))).toBe(true);

    // Claude Code runs `npx -y memdir serve --store file:./memory` in the project folder: the same
    // arguments, given to this build.
    const config = JSON.parse(await read(join(dir, '.mcp.json'))) as {
      mcpServers: { memdir: { args: string[] } };
    };
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, ...config.mcpServers.memdir.args.slice(2)],
      env: cliEnv() as Record<string, string>,
      cwd: dir,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'init-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const created = await client.callTool({
        name: 'memory',
        arguments: { command: 'create', path: '/memories/a.md', file_text: 'hello' },
      });
      expect(created.content).toEqual([
        { type: 'text', text: 'File created successfully at: /memories/a.md' },
      ]);
    } finally {
      await client.close();
    }
    expect(await read(join(dir, 'memory', 'memories', 'a.md'))).toBe('hello');
  });

  it('run again changes nothing and says so', async () => {
    const dir = await project();
    expect((await runCli(['init'], { cwd: dir })).code).toBe(0);
    const before = [await read(join(dir, '.mcp.json')), await read(join(dir, '.gitignore'))];
    const again = await runCli(['init'], { cwd: dir });
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(
      `memdir init: ${join(dir, '.mcp.json')} already has the "memdir" server (file:./memory): nothing to change\n${NEXT}`,
    );
    expect([await read(join(dir, '.mcp.json')), await read(join(dir, '.gitignore'))]).toEqual(before);
  });

  it('keeps the other servers and keys of .mcp.json and the lines of .gitignore', async () => {
    const dir = await project();
    const other = { command: 'node', args: ['tools.js'], env: { A: '1' } };
    await writeFile(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { tools: other }, note: 'kept' }));
    await writeFile(join(dir, '.gitignore'), 'node_modules'); // no newline at the end
    const result = await runCli(['init', dir, '--store', 'file:./.claude/memory', '--namespace', 'shop'], {
      cwd: await project(),
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(await read(join(dir, '.mcp.json')))).toEqual({
      mcpServers: {
        tools: other,
        memdir: {
          command: 'npx',
          args: ['-y', 'memdir', 'serve', '--store', 'file:./.claude/memory', '--namespace', 'shop'],
        },
      },
      note: 'kept',
    });
    expect(await read(join(dir, '.gitignore'))).toBe(`node_modules\n${IGNORE_NOTE}/.claude/memory/\n`);
  });

  it('a folder git already ignores gets no second line; one outside the project gets none', async () => {
    const dir = await project();
    await writeFile(join(dir, '.gitignore'), 'memory/\n');
    expect((await runCli(['init'], { cwd: dir })).code).toBe(0);
    expect(await read(join(dir, '.gitignore'))).toBe('memory/\n');

    const elsewhere = await project();
    const outside = await project();
    const result = await runCli(['init', '--store', `file://${outside}/mem`], { cwd: elsewhere });
    expect(result.code).toBe(0);
    expect(existsSync(join(elsewhere, '.gitignore'))).toBe(false);
    expect(existsSync(join(outside, 'mem'))).toBe(true);
  });

  it('another memdir server is left alone unless --force', async () => {
    const dir = await project();
    const theirs = `${JSON.stringify({ mcpServers: { memdir: { command: 'memdir', args: ['serve'] } } })}\n`;
    await writeFile(join(dir, '.mcp.json'), theirs);
    const refused = await runCli(['init'], { cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      `memdir: init: ${join(dir, '.mcp.json')} already has a "memdir" server, configured otherwise\n` +
        'Run memdir init --force to replace it, or edit the file.\n',
    );
    expect(await read(join(dir, '.mcp.json'))).toBe(theirs);
    expect(existsSync(join(dir, 'memory'))).toBe(false);
    expect(existsSync(join(dir, '.gitignore'))).toBe(false);

    const forced = await runCli(['init', '--force'], { cwd: dir });
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain(`memdir init: replaced the "memdir" server in ${join(dir, '.mcp.json')}`);
    expect(JSON.parse(await read(join(dir, '.mcp.json'))).mcpServers.memdir.args).toEqual([
      '-y',
      'memdir',
      'serve',
      '--store',
      'file:./memory',
    ]);
  });

  it('a .mcp.json that is not JSON, or not a configuration, is refused and left as it is', async () => {
    const dir = await project();
    await writeFile(join(dir, '.mcp.json'), '{"mcpServers": {');
    const broken = await runCli(['init'], { cwd: dir });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(
      new RegExp(
        `^memdir: init: ${join(dir, '.mcp.json').replaceAll('/', '\\/')} is not valid JSON \\(.+\\); fix it, and run memdir init again\\n`,
      ),
    );
    expect(await read(join(dir, '.mcp.json'))).toBe('{"mcpServers": {');
    expect(existsSync(join(dir, 'memory'))).toBe(false);

    await writeFile(join(dir, '.mcp.json'), '{"mcpServers": []}');
    const wrong = await runCli(['init'], { cwd: dir });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe(
      `memdir: init: ${join(dir, '.mcp.json')} is not an MCP configuration (an object whose "mcpServers" is an object)\n` +
        'Run "memdir init --help" for usage.\n',
    );
  });

  it('a store URL with a password is never written: the server reads it from $MEMDIR_STORE', async () => {
    const dir = await project();
    const result = await runCli(
      ['init', '--store', 'postgres://memdir:s3cret-pw@db.internal/memdir', '--json'],
      {
        cwd: dir,
      },
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ dir, mcp: 'added', storeFromEnvironment: true });
    const text = await read(join(dir, '.mcp.json'));
    expect(JSON.parse(text)).toEqual({
      mcpServers: {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: what Claude Code expands, written as is.
        memdir: { command: 'npx', args: ['-y', 'memdir', 'serve'], env: { MEMDIR_STORE: '${MEMDIR_STORE}' } },
      },
    });
    expect(`${text}${result.stdout}${result.stderr}`).not.toContain('s3cret-pw');
    expect(existsSync(join(dir, '.gitignore'))).toBe(false);
  });

  it('refuses what cannot work, writing nothing', async () => {
    const dir = await project();
    await mkdir(join(dir, 'sub'));
    for (const [args, message] of [
      [['init', 'missing'], `init: ${join(dir, 'missing')} is not a folder`],
      [
        ['init', '--store', 'memory:'],
        'init: a memory: store lives only as long as its process: give a store that keeps its files',
      ],
      [
        ['init', '--store', 'nowhere'],
        'init: --store expects a store URL (file:./memory, redis://..., postgres://...)',
      ],
      [['init', '--namespace', 'no/slash'], 'init: --namespace: "no/slash": '],
      [['init', 'sub', 'extra'], 'init: unexpected argument "extra"'],
    ] as const) {
      const result = await runCli(args, { cwd: dir });
      expect(result.code).toBe(2);
      expect(result.stderr.startsWith(`memdir: ${message}`)).toBe(true);
    }
    expect(existsSync(join(dir, '.mcp.json'))).toBe(false);
    expect(existsSync(join(dir, 'sub', '.mcp.json'))).toBe(false);
    expect(existsSync(join(dir, 'memory'))).toBe(false);
  });
});
