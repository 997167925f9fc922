#!/usr/bin/env node
// pnpm check:packages: what a user meets when they install a memdir package, checked for every
// package of packages/ that is not private (an adapter is checked the day it lands, with no list to
// update). Run after `pnpm build`.
//
// 1. The manifest and files: LICENSE (MIT) shipped, repository / homepage / bugs / keywords, an
//    exports map that require() can load on Node 20.19 (a `default` condition, types first), a README
//    that says "ESM, requires Node 20.19", links docs/protocol.md and has its example under test
//    (test/readme.test.ts, see scripts/readme-example.mjs).
// 2. The packed tarball (pnpm pack): publint --strict and @arethetypeswrong/cli --profile esm-only.
// 3. A fresh npm project outside the workspace with every tarball installed, as a user would: every
//    export loads with import and with require(); memdir runs; @memdir/core ships docs/protocol.md.
// 4. Install size: each package alone in its own fresh project (packages, MB), printed as a table;
//    memdir must install without vitest, fast-check or vite, and say what `memdir conformance` needs.
//
// Needs the npm registry for third-party dependencies (as `pnpm install` does). Exits 1 when a
// check fails; the last line reads "check:packages: N passed, N failed". --verbose also prints the
// full publint and attw reports.
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import {
  BIN,
  indent,
  freshProject as npmProject,
  pack as packPackage,
  publishedPackages,
  ROOT,
  readJson,
  run,
} from './npm-project.mjs';

const REPOSITORY = 'git+https://github.com/memdir/memdir.git';
const HOMEPAGE = (dir) => `https://github.com/memdir/memdir/tree/main/packages/${dir}#readme`;
const BUGS = 'https://github.com/memdir/memdir/issues';
const COPYRIGHT = 'Copyright (c) 2026 memdir contributors';
/** What a lean memdir must not pull in: the test runner and what comes with it. */
const TEST_TOOLS = ['vitest', 'fast-check', 'vite', '@vitest/runner', 'rolldown', 'lightningcss'];
/** The TypeScript setup of a user's project: what the packages' declarations must compile in. */
// @types/redis-errors: ioredis 6.1.0's own declarations import `redis-errors`, whose types it lists
// only as a devDependency, so any TypeScript project with skipLibCheck off that installs the newest
// ioredis fails inside ioredis (TS7016) until it adds them, as TypeScript's message says; a user does
// the same. memdir's declarations are checked as before.
const USER_TYPES = { '@types/node': '20.19.43', '@types/redis-errors': '1.2.3' };

const results = [];
function check(pkg, name, ok, detail = '') {
  results.push({ pkg, name, ok, detail });
  const mark = ok ? 'ok  ' : 'FAIL';
  console.log(`${mark} ${pkg}: ${name}${detail && !ok ? `\n${indent(detail)}` : ''}`);
}

/** The subpaths of an exports map, without ./package.json. */
function subpaths(manifest) {
  const exports = manifest.exports ?? {};
  return Object.keys(exports).filter((key) => key.startsWith('.') && key !== './package.json');
}

// --- 1. manifest and files ---------------------------------------------------------------------

/** The packages each changeset waiting in .changeset/ releases (from its front matter). */
function pendingChangesets() {
  const dir = join(ROOT, '.changeset');
  const pending = new Map();
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.md') && name !== 'README.md')) {
    const front = /^---\n([\s\S]*?)\n---/.exec(readFileSync(join(dir, file), 'utf8'))?.[1] ?? '';
    for (const match of front.matchAll(/^["']?([^"':\s]+)["']?\s*:\s*(major|minor|patch)\s*$/gm)) {
      pending.set(match[1], [...(pending.get(match[1]) ?? []), file]);
    }
  }
  return pending;
}

/**
 * Released like a package: a version of its own with its CHANGELOG.md (written by `changeset
 * version`) shipped, or, never released yet (0.0.0), a changeset waiting to release it.
 */
function checkRelease({ path, manifest }, pending) {
  const name = manifest.name;
  if (manifest.version === '0.0.0') {
    check(
      name,
      'at 0.0.0, with a changeset in .changeset/ that releases it',
      pending.has(name),
      'A new package needs a changeset (pnpm changeset) for its first release.',
    );
    return;
  }
  const changelog = existsSync(join(path, 'CHANGELOG.md'))
    ? readFileSync(join(path, 'CHANGELOG.md'), 'utf8')
    : '';
  check(
    name,
    `CHANGELOG.md has ${manifest.version}, and is in files`,
    changelog.startsWith(`# ${name}\n`) &&
      changelog.includes(`\n## ${manifest.version}\n`) &&
      manifest.files?.includes('CHANGELOG.md') === true,
    `CHANGELOG.md ${changelog === '' ? 'missing' : 'without a "## ' + manifest.version + '" section'}; files: ${JSON.stringify(manifest.files)}. Versions and changelogs come from \`pnpm version-packages\` (changeset version).`,
  );
}

/**
 * The repository's own documents a user or contributor looks for: SECURITY.md (how to report, what
 * is in scope) and CONTRIBUTING.md, which gives the same two commands as the README.
 */
function checkRepositoryDocuments() {
  const read = (file) => (existsSync(join(ROOT, file)) ? readFileSync(join(ROOT, file), 'utf8') : '');
  const security = read('SECURITY.md');
  check(
    '(repository)',
    'SECURITY.md says how to report, and names escapes, tenant isolation and leaks as in scope',
    /## Reporting/.test(security) &&
      /## In scope/.test(security) &&
      ['Escapes', 'Tenant isolation', 'Leaks'].every((word) => security.includes(`**${word}`)),
  );
  const readme = read('README.md');
  const contributing = read('CONTRIBUTING.md');
  const commands = [
    ...readme.matchAll(/^npm i -g pnpm@[\d.]+ && pnpm install --frozen-lockfile && pnpm (demo|test)$/gm),
  ].map((match) => match[0]);
  check(
    '(repository)',
    "CONTRIBUTING.md gives the README's two commands, the layout, and how to add an adapter and run the conformance suite on it",
    commands.length === 2 &&
      commands.every((command) => contributing.includes(command)) &&
      /## The layout/.test(contributing) &&
      /## Adding an adapter/.test(contributing) &&
      contributing.includes('describeMemoryStore('),
    `README commands: ${JSON.stringify(commands)}`,
  );
}

function checkManifest({ dir, path, manifest }) {
  const name = manifest.name;
  const license = existsSync(join(path, 'LICENSE')) ? readFileSync(join(path, 'LICENSE'), 'utf8') : '';
  check(
    name,
    'LICENSE is the MIT license of memdir contributors, and in files',
    license.startsWith('MIT License') &&
      license.includes(COPYRIGHT) &&
      manifest.files?.includes('LICENSE') === true,
    `LICENSE ${license === '' ? 'missing' : 'present'}; files: ${JSON.stringify(manifest.files)}`,
  );
  check(name, 'license is MIT', manifest.license === 'MIT', `license: ${JSON.stringify(manifest.license)}`);
  const repo = manifest.repository ?? {};
  check(
    name,
    'repository names the git URL and the package folder',
    repo.type === 'git' && repo.url === REPOSITORY && repo.directory === `packages/${dir}`,
    `repository: ${JSON.stringify(manifest.repository)}`,
  );
  check(
    name,
    'homepage is the package README',
    manifest.homepage === HOMEPAGE(dir),
    `homepage: ${manifest.homepage}`,
  );
  const bugs = typeof manifest.bugs === 'string' ? manifest.bugs : manifest.bugs?.url;
  check(name, 'bugs is the issue tracker', bugs === BUGS, `bugs: ${JSON.stringify(manifest.bugs)}`);
  check(
    name,
    'keywords are given',
    Array.isArray(manifest.keywords) && manifest.keywords.length >= 3,
    `keywords: ${JSON.stringify(manifest.keywords)}`,
  );
  check(
    name,
    'ESM with a Node 20.19 floor',
    manifest.type === 'module' && manifest.engines?.node === '>=20.19.0',
    `type: ${manifest.type}, engines: ${JSON.stringify(manifest.engines)}`,
  );
  const badExports = subpaths(manifest).filter((key) => {
    const target = manifest.exports[key];
    if (typeof target === 'string') return false;
    const conditions = Object.keys(target ?? {});
    return !conditions.includes('default') || (conditions.includes('types') && conditions[0] !== 'types');
  });
  check(
    name,
    'every export has a default condition (require() works on Node 20.19) and types first',
    subpaths(manifest).length > 0 && badExports.length === 0,
    `exports without a default condition or with types not first: ${badExports.join(', ') || '(no exports)'}`,
  );
  const readme = existsSync(join(path, 'README.md')) ? readFileSync(join(path, 'README.md'), 'utf8') : '';
  check(name, 'README says "ESM, requires Node 20.19"', readme.includes('ESM, requires Node 20.19'));
  check(name, 'README links docs/protocol.md', readme.includes('docs/protocol.md'));
  const leaving = relativeLinks(readme).filter((target) => {
    const resolved = resolve(path, target.split('#')[0]);
    if (!resolved.startsWith(resolve(path) + sep) || !existsSync(resolved)) return true;
    // Inside the package, the link must name something the tarball ships.
    const first = relative(resolve(path), resolved).split(sep)[0];
    return ![...(manifest.files ?? []), 'package.json'].some((entry) => entry.split('/')[0] === first);
  });
  check(
    name,
    'README links work on the package page: a relative link stays inside the package, the rest of the repository is linked by URL',
    leaving.length === 0,
    `links that leave the package or name nothing: ${leaving.join(', ')}`,
  );
  const readmeTest = join(path, 'test', 'readme.test.ts');
  check(
    name,
    "README's main example is run by test/readme.test.ts",
    existsSync(readmeTest) && /readme-example\.mjs/.test(readFileSync(readmeTest, 'utf8')),
    'Add test/readme.test.ts calling runReadmeExample() or readmeExample() from scripts/readme-example.mjs (see its header).',
  );
  if (name === '@memdir/core') {
    check(name, 'ships docs/protocol.md (files)', manifest.files?.includes('docs/protocol.md') === true);
  }
}

/** The relative targets of a Markdown text's links (inline and reference style), anchors kept. */
function relativeLinks(markdown) {
  const targets = [
    ...[...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]),
    ...[...markdown.matchAll(/^\[[^\]]+\]:\s*(\S+)/gm)].map((match) => match[1]),
  ];
  return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('#'));
}

// --- 2. the packed tarball ---------------------------------------------------------------------

function pack(pkg, destination) {
  const { tarball, result } = packPackage(pkg, destination);
  check(pkg.manifest.name, 'packs', result.code === 0 && tarball !== undefined, result.output);
  return tarball;
}

function lintTarball(pkg, tarball) {
  const publint = run(join(BIN, 'publint'), ['run', tarball, '--strict']);
  check(
    pkg.manifest.name,
    'publint --strict: no error, warning or suggestion',
    publint.code === 0 && /All good!/.test(publint.output),
    publint.output,
  );
  const attw = run(join(BIN, 'attw'), [
    tarball,
    '--profile',
    'esm-only',
    '--no-color',
    '--no-emoji',
    '--format',
    'table',
  ]);
  check(pkg.manifest.name, 'attw --profile esm-only: no problem', attw.code === 0, attw.output);
  return { publint: publint.output, attw: attw.output };
}

// --- 3. a fresh npm project --------------------------------------------------------------------

function freshProject(name, dependencies, tarballs) {
  // Workspace siblings come from their tarballs too, wherever they are depended on.
  const overrides = Object.fromEntries(Object.entries(tarballs).map(([pkg, file]) => [pkg, `file:${file}`]));
  return npmProject(name, dependencies, { overrides });
}

/** Every package installed: the entries of the lockfile, and the bytes of node_modules. */
function installSize(dir) {
  const lock = readJson(join(dir, 'package-lock.json'));
  const installed = Object.keys(lock.packages ?? {}).filter((key) => key !== '');
  let bytes = 0;
  const walk = (path) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) walk(full);
      else bytes += lstatSync(full).size;
    }
  };
  walk(join(dir, 'node_modules'));
  const names = installed.map((key) => key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length));
  return { packages: installed.length, bytes, names };
}

async function checkInstalled(packages, tarballs) {
  const dependencies = Object.fromEntries(
    Object.entries(tarballs).map(([pkg, file]) => [pkg, `file:${file}`]),
  );
  const project = await freshProject('all', dependencies, tarballs);
  check(
    '(all)',
    'npm install of every tarball in a fresh project',
    project.install.code === 0,
    project.install.output,
  );
  if (project.install.code !== 0) return project.dir;
  for (const { manifest } of packages) {
    const installedDir = join(project.dir, 'node_modules', manifest.name);
    check(
      manifest.name,
      'installed with its LICENSE and README',
      existsSync(join(installedDir, 'LICENSE')) && existsSync(join(installedDir, 'README.md')),
    );
    const optional = Object.keys(manifest.peerDependenciesMeta ?? {}).filter(
      (peer) => manifest.peerDependenciesMeta[peer]?.optional,
    );
    for (const subpath of subpaths(manifest)) {
      const specifier = subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`;
      for (const how of ['import', 'require']) {
        const code =
          how === 'import'
            ? `import(${JSON.stringify(specifier)}).then((m) => console.log(Object.keys(m).length), (e) => { console.error(e.code ?? '', e.message); process.exit(1); })`
            : `try { console.log(Object.keys(require(${JSON.stringify(specifier)})).length) } catch (e) { console.error(e.code ?? '', e.message); process.exit(1) }`;
        const result = run(
          process.execPath,
          ['--input-type', how === 'import' ? 'module' : 'commonjs', '-e', code],
          {
            cwd: project.dir,
          },
        );
        // An entry point built on an optional peer may only fail by naming that peer.
        const missingPeer = optional.find((peer) => result.output.includes(`'${peer}'`));
        const ok = result.code === 0 && Number(result.stdout.trim()) > 0;
        check(
          manifest.name,
          `${how} ${JSON.stringify(specifier)}${!ok && missingPeer ? ` (needs the optional peer ${missingPeer}: not installed, as expected)` : ''}`,
          ok || (missingPeer !== undefined && /ERR_MODULE_NOT_FOUND/.test(result.output)),
          result.output,
        );
      }
    }
  }
  if (tarballs['@memdir/core'] && tarballs['@memdir/fs']) {
    // `await using store = ...` (Node 24 syntax; on Node 20 the same call made by hand).
    const dispose = run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { createInMemoryStore } from '@memdir/core'; import { createFsStore } from '@memdir/fs';\n" +
          "for (const store of [createInMemoryStore(), createFsStore({ root: 'disposed' })]) {\n" +
          "  await store.create({ command: 'create', path: '/memories/a.md', file_text: 'a' });\n" +
          '  await store[Symbol.asyncDispose]();\n' +
          "  const after = await store.view({ command: 'view', path: '/memories' }).then(() => 'still open', (error) => error.code);\n" +
          '  console.log(after);\n' +
          '}',
      ],
      { cwd: project.dir },
    );
    check(
      '@memdir/core',
      'stores close through Symbol.asyncDispose (await using), in-memory and fs',
      dispose.code === 0 &&
        !dispose.stdout.includes('still open') &&
        dispose.stdout.trim().split('\n').length === 2,
      dispose.output,
    );
  }
  const core = join(project.dir, 'node_modules', '@memdir', 'core', 'docs', 'protocol.md');
  if (tarballs['@memdir/core']) {
    check(
      '@memdir/core',
      'the installed package has docs/protocol.md, identical to the repository',
      existsSync(core) &&
        readFileSync(core, 'utf8') === readFileSync(join(ROOT, 'docs', 'protocol.md'), 'utf8'),
    );
  }
  if (tarballs.memdir) {
    const memdir = join(project.dir, 'node_modules', '.bin', 'memdir');
    const version = run(memdir, ['--version'], { cwd: project.dir });
    check('memdir', 'memdir --version runs from the install', version.code === 0, version.output);
    const view = run(memdir, ['view', '--store', 'memory:'], { cwd: project.dir });
    check(
      'memdir',
      'memdir view runs from the install',
      view.code === 0 && view.stdout.startsWith("Here're the files"),
      view.output,
    );
    // @memdir/conformance is installed here, with vitest and fast-check as its peers (at the versions
    // the workspace tests with), so both commands run the suite.
    const peers = run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--loglevel=error', 'vitest@4.1.12', 'fast-check@4.11.0'],
      {
        cwd: project.dir,
      },
    );
    await writeFile(
      join(project.dir, 'store.mjs'),
      "import { createInMemoryDriver } from '@memdir/core';\n" +
        'const backends = new Map();\n' +
        'export function createDriver(backend) {\n' +
        '  if (!backends.has(backend)) backends.set(backend, createInMemoryDriver());\n' +
        '  return backends.get(backend);\n' +
        '}\n',
    );
    const passing = run(memdir, ['conformance', './store.mjs', '--property-runs', '3'], { cwd: project.dir });
    check(
      'memdir',
      'memdir conformance passes the in-memory store with @memdir/conformance installed',
      peers.code === 0 && passing.code === 0 && passing.stdout.includes('Result: PASS'),
      `${peers.output}\n${passing.output.slice(-3000)}`,
    );
  }
  if (tarballs.memdir && tarballs['@memdir/conformance']) {
    // On the store module written above.
    const bin = join(project.dir, 'node_modules', '.bin', 'memdir-conformance');
    const passing = run(bin, ['./store.mjs', '--property-runs', '3'], { cwd: project.dir });
    check(
      '@memdir/conformance',
      'memdir-conformance passes the in-memory store from the install',
      passing.code === 0 && passing.stdout.includes('Result: PASS'),
      passing.output.slice(-3000),
    );
  }
  await checkTypes(project.dir, packages);
  return project.dir;
}

/**
 * The declarations compile in a TypeScript user's project: strict, NodeNext, and skipLibCheck off
 * (with it on, a declaration that imports an untyped module, such as `pg` without `@types/pg`,
 * turns its types into `any` without a word). The project has only what such a user installs:
 * typescript and @types/node, besides the packages and their peers.
 */
async function checkTypes(dir, packages) {
  const types = run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      ...Object.entries(USER_TYPES).map(([name, version]) => `${name}@${version}`),
    ],
    { cwd: dir },
  );
  const specifiers = packages.flatMap(({ manifest }) =>
    subpaths(manifest).map((subpath) =>
      subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`,
    ),
  );
  // Every export compiles; and every store a package makes (its `create...Store` functions) can be
  // held with `await using`, i.e. has Symbol.asyncDispose.
  const mains = packages.map(({ manifest }) => manifest.name);
  await writeFile(
    join(dir, 'types.ts'),
    [
      ...specifiers.map((specifier, i) => `export * as m${i} from ${JSON.stringify(specifier)};`),
      ...mains.map((name, i) => `import * as main${i} from ${JSON.stringify(name)};`),
      'type Fn = (...args: never[]) => unknown;',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a TypeScript template literal type, written out
      'type Stores<M> = { [K in keyof M as K extends `create${string}Store` ? K : never]: M[K] extends Fn ? Awaited<ReturnType<M[K]>> : never };',
      ...mains.map(
        (name, i) =>
          `export const disposable${i}: { [K in keyof Stores<typeof main${i}>]: AsyncDisposable } = {} as Stores<typeof main${i}>; // ${name}`,
      ),
      '',
    ].join('\n'),
  );
  await writeFile(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        // What a Node project gets without a lib setting (the DOM's types: the MCP SDK's declarations use
        // HeadersInit), plus the disposables that `await using` needs.
        lib: ['es2022', 'dom', 'esnext.disposable'],
        noEmit: true,
        skipLibCheck: false,
        types: ['node'],
      },
      files: ['types.ts'],
    }),
  );
  const tsc = run(join(BIN, 'tsc'), ['-p', 'tsconfig.json'], { cwd: dir });
  check(
    '(all)',
    `tsc (strict, skipLibCheck off) on every export, with only typescript and ${Object.keys(USER_TYPES).join(', ')} added; every create...Store makes an AsyncDisposable`,
    types.code === 0 && tsc.code === 0,
    `${types.output}\n${tsc.output}`,
  );
}

// --- main --------------------------------------------------------------------------------------

const started = Date.now();
const packages = publishedPackages();
console.log(`check:packages: ${packages.map((pkg) => pkg.manifest.name).join(', ')}\n`);
const pending = pendingChangesets();
for (const pkg of packages) {
  checkManifest(pkg);
  checkRelease(pkg, pending);
}
checkRepositoryDocuments();

const work = await mkdtemp(join(tmpdir(), 'memdir-check-packages-'));
const folders = [work];
const sizes = [];
const lint = {};
try {
  const tarballDir = join(work, 'tarballs');
  await mkdir(tarballDir);
  const tarballs = {};
  for (const pkg of packages) {
    const tarball = pack(pkg, tarballDir);
    if (tarball === undefined) continue;
    tarballs[pkg.manifest.name] = tarball;
    lint[pkg.manifest.name] = lintTarball(pkg, tarball);
  }
  folders.push(await checkInstalled(packages, tarballs));

  for (const pkg of packages) {
    const name = pkg.manifest.name;
    if (!tarballs[name]) continue;
    // The package alone, with the peers npm installs for it (non-optional ones).
    const project = await freshProject(
      name.replace('@', '').replace('/', '-'),
      { [name]: `file:${tarballs[name]}` },
      tarballs,
    );
    folders.push(project.dir);
    if (project.install.code !== 0) {
      check(name, 'installs alone in a fresh project', false, project.install.output);
      continue;
    }
    const size = installSize(project.dir);
    sizes.push({ name, ...size });
    if (name === 'memdir') {
      const conformance = run(
        join(project.dir, 'node_modules', '.bin', 'memdir'),
        ['conformance', './package.json'],
        {
          cwd: project.dir,
        },
      );
      check(
        name,
        'memdir conformance without @memdir/conformance says what to install (exit 2)',
        conformance.code === 2 &&
          conformance.output.includes('npm install --save-dev memdir @memdir/conformance vitest fast-check'),
        conformance.output,
      );
      const heavy = TEST_TOOLS.filter((tool) => size.names.includes(tool));
      check(
        name,
        `installs without ${TEST_TOOLS.join(', ')}`,
        heavy.length === 0,
        `installed: ${heavy.join(', ')}`,
      );
    }
  }
} finally {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
}

if (sizes.length > 0) {
  console.log('\nInstall size, each package alone in a fresh npm project (npm install of its tarball):\n');
  console.log('| package | packages installed | size of node_modules |');
  console.log('|---|---:|---:|');
  for (const size of sizes) {
    console.log(`| ${size.name} | ${size.packages} | ${(size.bytes / 1_000_000).toFixed(1)} MB |`);
  }
}
if (process.argv.includes('--verbose')) {
  for (const [name, output] of Object.entries(lint))
    console.log(`\n${name}\n${output.publint}\n${output.attw}`);
}

const passed = results.filter((result) => result.ok).length;
const failed = results.length - passed;
console.log(`\n(${((Date.now() - started) / 1000).toFixed(0)}s)`);
console.log(`check:packages: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
