// memdir installs without a test runner: @memdir/conformance (with the vitest and fast-check it runs
// on) is an optional peer dependency that only `memdir conformance` loads. These tests run the
// built CLI from a folder laid out as npm would install it (memdir, @memdir/core, @memdir/fs and
// memdir's own dependencies, nothing else), outside the workspace, so nothing can find the
// workspace's vitest. (pnpm check:packages does the same from the packed tarballs with a real npm
// install, and measures its size.) memdir/open-store runs from an install holding only memdir,
// @memdir/core and @memdir/fs: its modules import nothing else.
import { cp, mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import manifest from '../package.json' with { type: 'json' };
import { runCli, tempFolder } from './helpers.js';

const PACKAGES = fileURLToPath(new URL('../../', import.meta.url));
const CLI_MODULES = join(PACKAGES, 'cli', 'node_modules');

let install: { path: string; remove: () => Promise<void> };
let bin: string;

async function copyPackage(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  await cp(join(from, 'package.json'), join(to, 'package.json'));
  await cp(join(from, 'dist'), join(to, 'dist'), { recursive: true });
}

beforeAll(async () => {
  install = await tempFolder();
  const modules = join(install.path, 'node_modules');
  await copyPackage(join(PACKAGES, 'cli'), join(modules, 'memdir'));
  await copyPackage(join(PACKAGES, 'core'), join(modules, '@memdir', 'core'));
  await copyPackage(join(PACKAGES, 'fs'), join(modules, '@memdir', 'fs'));
  // memdir's own dependencies, as installed for the workspace (their dependencies resolve there).
  for (const name of Object.keys(manifest.dependencies)) {
    if (name.startsWith('@memdir/')) continue;
    const target = join(modules, name);
    await mkdir(dirname(target), { recursive: true });
    await symlink(await realpath(join(CLI_MODULES, name)), target, 'dir');
  }
  bin = join(modules, 'memdir', 'dist', 'bin.js');
});

afterAll(async () => {
  await install?.remove();
});

function memdir(args: string[], input?: string) {
  return runCli(args, { cwd: install.path, ...(input === undefined ? {} : { input }), bin });
}

describe('memdir without vitest and fast-check', () => {
  it('depends on neither: the conformance runner is an optional peer dependency', () => {
    const dependencies = Object.keys(manifest.dependencies);
    for (const tool of ['vitest', 'fast-check', 'vite', '@memdir/conformance'])
      expect(dependencies).not.toContain(tool);
    expect(manifest.peerDependenciesMeta).toEqual({ '@memdir/conformance': { optional: true } });
  });

  it('runs the store commands', async () => {
    const created = await memdir(['create', '/memories/a.md', '--text', 'hi']);
    expect(created).toEqual({
      code: 0,
      stdout: 'File created successfully at: /memories/a.md\n',
      stderr: '',
    });
    const viewed = await memdir(['view', '/memories/a.md']);
    expect(viewed.stdout).toBe("Here's the content of /memories/a.md with line numbers:\n     1\thi\n");
  });

  it('serves over MCP', async () => {
    // stdin closes at once: the server starts, logs its one line and stops.
    const served = await memdir(['serve', '--store', 'memory:'], '');
    expect(served.code, served.stderr).toBe(0);
    expect(served.stderr).toBe('memdir: serving memory: over MCP on stdio (tool "memory")\n');
  });

  it('conformance says what to install, exit 2', async () => {
    const result = await memdir(['conformance', './node_modules/memdir/package.json']);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'memdir: conformance needs @memdir/conformance, vitest and fast-check, which memdir does not install (the store commands and memdir serve do not need a test runner)\n' +
        'Install them next to memdir in your project: npm install --save-dev memdir @memdir/conformance vitest fast-check\n' +
        'or run it once with: npx -p memdir -p @memdir/conformance -p vitest -p fast-check memdir conformance ./my-store.ts\n',
    });
  });

  it('a first-party scheme whose adapter is not installed says which package to install', async () => {
    expect(await memdir(['view', '--store', 'redis://localhost:6379'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'memdir: Unsupported store URL redis://localhost:6379: install @memdir/redis\n' +
        'Run "npm install @memdir/redis" in this project (or next to a global memdir).\n',
    });
    expect((await memdir(['view', '--store', 'postgres://db/x'])).stderr).toMatch(
      /^memdir: Unsupported store URL postgres:\/\/db\/x: install @memdir\/postgres\n/,
    );
    expect((await memdir(['view', '--store', 's3://bucket/prefix'])).stderr).toMatch(
      /^memdir: Unsupported store URL s3:\/\/bucket\/prefix: install @memdir\/s3\n/,
    );
  });

  it('conformance --help needs neither', async () => {
    const result = await memdir(['conformance', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: memdir conformance MODULE/);
  });
});

describe("memdir/open-store without the CLI's dependencies", () => {
  let bare: { path: string; remove: () => Promise<void> };

  beforeAll(async () => {
    // memdir, @memdir/core and @memdir/fs, and none of memdir's other dependencies (the MCP SDK,
    // Hono, zod, diff, smol-toml, @memdir/server, @memdir/sync): an import of any fails.
    bare = await tempFolder();
    const modules = join(bare.path, 'node_modules');
    await copyPackage(join(PACKAGES, 'cli'), join(modules, 'memdir'));
    await copyPackage(join(PACKAGES, 'core'), join(modules, '@memdir', 'core'));
    await copyPackage(join(PACKAGES, 'fs'), join(modules, '@memdir', 'fs'));
  });

  afterAll(async () => {
    await bare?.remove();
  });

  it('opens file: and memory: stores with only memdir, @memdir/core and @memdir/fs installed', async () => {
    const script = join(bare.path, 'open.mjs');
    await writeFile(
      script,
      [
        "import { openStore } from 'memdir/open-store';",
        "for (const url of ['memory:', 'file:./memory']) {",
        '  const store = await openStore(url, {});',
        "  await store.execute({ command: 'create', path: '/memories/a.md', file_text: 'hi' });",
        "  console.log(await store.execute({ command: 'view', path: '/memories/a.md' }));",
        '  await store.close();',
        '}',
      ].join('\n'),
    );
    const view = "Here's the content of /memories/a.md with line numbers:\n     1\thi\n";
    expect(await runCli([], { cwd: bare.path, bin: script })).toEqual({
      code: 0,
      stdout: `${view}${view}`,
      stderr: '',
    });
    // The CLI's own entry does need what is missing: the install lacks it, for the check above to mean anything.
    const cli = await runCli(['view'], {
      cwd: bare.path,
      bin: join(bare.path, 'node_modules', 'memdir', 'dist', 'bin.js'),
    });
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toContain('ERR_MODULE_NOT_FOUND');
  });
});
