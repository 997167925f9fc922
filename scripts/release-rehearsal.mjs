#!/usr/bin/env node
// pnpm release:rehearsal: a release, rehearsed against a registry of our own. Run after `pnpm
// build`, with the servers' variables set (REDIS_URL, DATABASE_URL, S3_*), as .ci/run exports them.
//
// 1. verdaccio (installed from the npm registry into a temporary project) starts on a free loopback
//    port, with its storage in a temporary folder and no uplinks: it holds only what we publish.
// 2. `changeset publish --no-git-tag`, the publish step of `pnpm release`, publishes every package
//    to it, one by one, as a release would (pnpm publish: workspace ranges replaced, prepack run).
// 3. Each package then installs alone, with @memdir/core, from that registry into a fresh npm
//    project outside the workspace (only `@memdir/*` from the local registry; clients and other
//    dependencies from the usual one), with the install line of its README, and its README's main
//    example runs there as written and must print what its comments say, against the real servers.
//    The CLI is installed from its tarball on the local registry, its README session is run, and
//    `memdir demo` plays its scripted session offline (the published example: a known line of it is
//    checked, and its temporary folder must be gone).
// 4. verdaccio is stopped, whatever happened (also on Ctrl-C).
//
// Exits 1 when a step fails; prints each step's time.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { BIN, freshProject, indent, publishedPackages, ROOT, readJson, runAsync } from './npm-project.mjs';
import { readmeExample, shellTranscript } from './readme-example.mjs';

/** verdaccio 6.8 is the last that runs on Node 20; node-fetch 2.7 keeps its install on Node 20. */
const VERDACCIO = { verdaccio: '6.8.0' };
const VERDACCIO_OVERRIDES = { 'node-fetch': '2.7.0' };
/** The publisher of the rehearsal: a user made on the throwaway registry, nowhere else. */
const PUBLISHER = { name: 'memdir-rehearsal', password: 'rehearsal-only' };

const started = Date.now();
const rows = [];
let failed = false;
const seconds = (since) => ((Date.now() - since) / 1000).toFixed(0);

function record(step, ok, since, detail = '') {
  rows.push({ step, ok, seconds: seconds(since) });
  if (!ok) failed = true;
  console.log(
    `${ok ? 'ok  ' : 'FAIL'} ${step} (${seconds(since)}s)${ok || !detail ? '' : `\n${indent(detail)}`}`,
  );
  return ok;
}

/** A port nobody listens on now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitForPing(url, deadlineMs) {
  const until = Date.now() + deadlineMs;
  for (;;) {
    try {
      if ((await fetch(`${url}-/ping`)).ok) return true;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** What a README's first `npm install ...` line installs, without the comment after it. */
function installLine(readme) {
  const line = readFileSync(readme, 'utf8')
    .split('\n')
    .find((candidate) => candidate.startsWith('npm install '));
  return line?.replace(/#.*$/, '').trim().split(/\s+/).slice(2) ?? [];
}

/** The packages a code block imports (bare specifiers, not node: builtins), by package name. */
function exampleImports(code) {
  const names = [...code.matchAll(/(?:from|import)\s*\(?\s*'([^'./][^']*)'/g)]
    .map((match) => match[1])
    .filter((specifier) => !specifier.startsWith('node:'))
    .map((specifier) =>
      specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/'),
    );
  return [...new Set(names)];
}

/** The workspace's own CLI (built), which serves the memory stores API for @memdir/memory-stores. */
const CLI = join(ROOT, 'packages', 'cli', 'dist', 'bin.js');

/**
 * What the example of @memdir/memory-stores needs: a memory stores API. A `memdir serve --http` of
 * this workspace on a throwaway file store, with an administration token and one store made through
 * `memdir stores create`; resolves with the example's environment and a stop function.
 */
async function memoryStoresServer() {
  const dir = await mkdtemp(join(tmpdir(), 'memdir-rehearsal-api-'));
  folders.push(dir);
  const store = `file:${join(dir, 'store')}`;
  const tokens = join(dir, 'tokens.json');
  const added = await runAsync(process.execPath, [
    CLI,
    'token',
    'add',
    'rehearsal',
    '--stores',
    '--tokens',
    tokens,
  ]);
  const made = await runAsync(process.execPath, [
    CLI,
    'stores',
    'create',
    'rehearsal',
    '--store',
    store,
    '--json',
  ]);
  if (added.code !== 0 || made.code !== 0) {
    throw new Error(`could not set up a memory stores API for the example:\n${added.output}\n${made.output}`);
  }
  const server = spawn(
    process.execPath,
    [CLI, 'serve', '--http', '127.0.0.1:0', '--store', store, '--tokens', tokens],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  const origin = await new Promise((resolve, reject) => {
    server.stderr.setEncoding('utf8').on('data', (chunk) => {
      if (stderr.length < 100_000) stderr += chunk;
      const match = /over MCP on (http:\/\/[^/\s]+)\/mcp/.exec(stderr);
      if (match) resolve(match[1]);
    });
    server.once('exit', (code) => reject(new Error(`memdir serve --http exited (${code}):\n${stderr}`)));
  });
  return {
    env: {
      MEMDIR_MEMORY_STORES_KEY: added.stdout.trim(),
      MEMORY_STORES_BASE_URL: origin,
      MEMORY_STORE_ID: JSON.parse(made.stdout).id,
    },
    async stop() {
      if (server.exitCode !== null || server.signalCode !== null) return;
      const exited = once(server, 'exit');
      server.kill('SIGTERM');
      await exited;
    },
  };
}

/** One package from the local registry, alone with @memdir/core, and its README example run. */
async function installAndRun(pkg, registry) {
  const since = Date.now();
  const readme = join(pkg.path, 'README.md');
  // As the README says, with @memdir/core whether it says so or not, and what else its example
  // imports (an OpenTelemetry SDK...) at the version the package's own tests use.
  const example = readmeExample(readme);
  const said = [...new Set(['@memdir/core', ...installLine(readme)])];
  const extra = exampleImports(example.code)
    .filter((name) => !said.includes(name))
    .map((name) => `${name}@${pkg.manifest.devDependencies?.[name] ?? 'latest'}`);
  const wanted = [...said, ...extra];
  const label = `${pkg.manifest.name}: npm install ${wanted.join(' ')}, @memdir/* from the local registry`;
  const project = await freshProject(
    `rehearsal-${pkg.dir}`,
    {},
    {
      npmrc: `@memdir:registry=${registry}\n`,
      // The lockfile names where each package came from (this machine's npm config leaves it out).
      installArgs: ['--omit-lockfile-registry-resolved=false', ...wanted],
    },
  );
  const ls =
    project.install.code === 0
      ? await runAsync('npm', ['ls', '--all'], { cwd: project.dir })
      : { code: 1, output: '' };
  const installed = record(
    label,
    project.install.code === 0 && !/ERESOLVE/.test(project.install.output) && ls.code === 0,
    since,
    `${project.install.output}\n${ls.output}`,
  );
  if (installed) {
    const lock = readJson(join(project.dir, 'package-lock.json'));
    // Every @memdir package in the tree, the one under test at this version, from the local registry.
    // (A dependency nested below one, such as node_modules/@memdir/server/node_modules/hono, is not.)
    const memdir = Object.entries(lock.packages ?? {}).filter(([path]) =>
      /(^|\/)node_modules\/@memdir\/[^/]+$/.test(path),
    );
    const elsewhere = memdir.filter(([, entry]) => !entry.resolved?.startsWith(registry));
    record(
      `${pkg.manifest.name}: ${memdir.map(([path, entry]) => `${path.replace(/^.*node_modules\//, '')}@${entry.version}`).join(', ')} from the local registry`,
      memdir.length > 0 &&
        elsewhere.length === 0 &&
        lock.packages?.[`node_modules/${pkg.manifest.name}`]?.version === pkg.manifest.version,
      since,
      JSON.stringify(elsewhere),
    );
    const exampleSince = Date.now();
    const { outputText } = ts.transpileModule(example.code, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    if (pkg.manifest.name === '@memdir/conformance') {
      // Its example is a test file: run by vitest, the view group is enough to show the suite passes.
      await writeFile(join(project.dir, 'conformance.test.mjs'), outputText);
      const vitest = join(project.dir, 'node_modules', 'vitest', 'vitest.mjs');
      const run = await runAsync(process.execPath, [vitest, 'run', '-t', 'view: '], {
        cwd: project.dir,
        deadlineMs: 120_000,
      });
      record(
        `${pkg.manifest.name}: its README example passes in vitest`,
        run.code === 0,
        exampleSince,
        run.output.slice(-3000),
      );
    } else {
      await writeFile(join(project.dir, 'example.mjs'), outputText);
      // The memory stores driver's example talks to a memory stores API: this workspace's server.
      const api = pkg.manifest.name === '@memdir/memory-stores' ? await memoryStoresServer() : undefined;
      const run = await runAsync(process.execPath, ['example.mjs'], {
        cwd: project.dir,
        deadlineMs: 60_000,
        env: { ...process.env, ...api?.env },
      }).finally(() => api?.stop());
      record(
        `${pkg.manifest.name}: its README example prints what its comments say`,
        run.code === 0 && example.expectedOutput !== undefined && run.stdout === example.expectedOutput,
        exampleSince,
        `expected:\n${example.expectedOutput}\ngot:\n${run.output.slice(-3000)}`,
      );
    }
  }
  return project.dir;
}

/** The CLI from its tarball on the local registry, and its README session. */
async function installCli(pkg, registry) {
  const since = Date.now();
  const tarball = `${registry}memdir/-/memdir-${pkg.manifest.version}.tgz`;
  const project = await freshProject(
    'rehearsal-cli',
    { memdir: tarball },
    { npmrc: `@memdir:registry=${registry}\n` },
  );
  if (!record(`memdir: npm install ${tarball}`, project.install.code === 0, since, project.install.output)) {
    return project.dir;
  }
  const sessionSince = Date.now();
  const steps = shellTranscript(
    readmeExample(join(pkg.path, 'README.md'), { languages: ['sh'] }).code,
    'memdir',
  );
  const problems = [];
  for (const step of steps) {
    const run = await runAsync(join(project.dir, 'node_modules', '.bin', 'memdir'), step.args, {
      cwd: project.dir,
    });
    if (run.code !== 0 || run.stdout !== step.expected) {
      problems.push(`memdir ${step.args.join(' ')}\nexpected:\n${step.expected}got:\n${run.output}`);
    }
  }
  record(
    `memdir: its README session (${steps.length} commands) prints what it shows`,
    steps.length > 0 && problems.length === 0,
    sessionSince,
    problems.join('\n'),
  );
  await playDemo(project.dir);
  return project.dir;
}

/** The error line of `memdir demo`'s session: the model's mistake, as the engine answers it. */
const DEMO_LINE =
  '  │ Error: No replacement was performed. Multiple occurrences of old_str `- [ ]` in lines: 5, 6. Please ensure it is unique\n';

/** `env` without the MEMDIR_ variables (a store or config file of the machine running this). */
function withoutMemdirSettings(env) {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('MEMDIR_')));
}

/**
 * `memdir demo` from the installed CLI, as a newcomer runs it (`npx memdir demo`): it must print
 * the known error line and remove its temporary folder (its own TMPDIR here, so that is checkable).
 */
async function playDemo(projectDir) {
  const since = Date.now();
  const tmp = await mkdtemp(join(tmpdir(), 'memdir-rehearsal-demo-'));
  try {
    const run = await runAsync(join(projectDir, 'node_modules', '.bin', 'memdir'), ['demo'], {
      cwd: projectDir,
      // As on a newcomer's machine: no store or config file of the environment.
      env: { ...withoutMemdirSettings(process.env), TMPDIR: tmp },
    });
    const left = await readdir(tmp);
    record(
      'memdir: memdir demo plays the scripted session, prints its known error line and leaves no folder',
      run.code === 0 && run.stdout.includes(`\n${DEMO_LINE}`) && left.length === 0,
      since,
      `exit ${run.code}; left in TMPDIR: ${left.join(', ') || 'nothing'}\n${run.output.slice(-3000)}`,
    );
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

// --- main --------------------------------------------------------------------------------------

const missing = [
  'REDIS_URL',
  'DATABASE_URL',
  'S3_ENDPOINT',
  'S3_BUCKET',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
].filter((name) => !process.env[name]);
if (missing.length > 0) {
  console.error(
    `release:rehearsal needs the servers' variables: ${missing.join(', ')} unset (see scripts/services.sh env)`,
  );
  process.exit(1);
}

const folders = [];
let verdaccio;
/** Stops verdaccio and whatever it started (its process group): SIGTERM, then SIGKILL after 5 s. */
async function stop() {
  if (verdaccio?.pid === undefined || verdaccio.exitCode !== null || verdaccio.signalCode !== null) return;
  const exited = once(verdaccio, 'exit');
  const signal = (name) => {
    try {
      process.kill(-verdaccio.pid, name);
    } catch {
      // Gone already.
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
for (const [name, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
]) {
  process.once(name, () => stop().finally(() => process.exit(code)));
}

try {
  // 1. The registry.
  let since = Date.now();
  const server = await freshProject('verdaccio', VERDACCIO, { overrides: VERDACCIO_OVERRIDES });
  folders.push(server.dir);
  if (
    !record(`npm i verdaccio@${VERDACCIO.verdaccio}`, server.install.code === 0, since, server.install.output)
  ) {
    throw new Error('verdaccio did not install');
  }
  since = Date.now();
  const port = await freePort();
  const registry = `http://127.0.0.1:${port}/`;
  await writeFile(
    join(server.dir, 'config.yaml'),
    [
      `storage: ${join(server.dir, 'storage')}`,
      'auth:',
      '  htpasswd:',
      `    file: ${join(server.dir, 'htpasswd')}`,
      'uplinks: {}',
      'packages:',
      "  '**':",
      '    access: $all',
      '    publish: $authenticated',
      `listen: 127.0.0.1:${port}`,
      'log: { type: stdout, format: pretty, level: error }',
      '',
    ].join('\n'),
  );
  verdaccio = spawn(join(server.dir, 'node_modules', '.bin', 'verdaccio'), ['--config', 'config.yaml'], {
    cwd: server.dir,
    detached: true,
    stdio: 'ignore',
  });
  if (!record(`verdaccio answers on ${registry}`, await waitForPing(registry, 30_000), since)) {
    throw new Error('verdaccio did not start');
  }

  // 2. Publish, as `pnpm release` does after its build.
  since = Date.now();
  const user = await fetch(`${registry}-/user/org.couchdb.user:${PUBLISHER.name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: PUBLISHER.name, password: PUBLISHER.password }),
  }).then((response) => response.json());
  const npmrc = join(server.dir, 'publisher.npmrc');
  await writeFile(npmrc, `registry=${registry}\n//127.0.0.1:${port}/:_authToken=${user.token}\n`);
  const publish = await runAsync(join(BIN, 'changeset'), ['publish', '--no-git-tag'], {
    cwd: ROOT,
    env: { ...process.env, NPM_CONFIG_USERCONFIG: npmrc, npm_config_registry: registry },
  });
  const packages = publishedPackages();
  const onRegistry = await Promise.all(
    packages.map(async ({ manifest }) => {
      const view = await runAsync('npm', [
        'view',
        `${manifest.name}@${manifest.version}`,
        'version',
        '--registry',
        registry,
      ]);
      return view.stdout.trim() === manifest.version
        ? undefined
        : `${manifest.name}@${manifest.version} is not on the registry`;
    }),
  );
  const notThere = onRegistry.filter((problem) => problem !== undefined);
  if (
    !record(
      `changeset publish --no-git-tag: ${packages.map(({ manifest }) => `${manifest.name}@${manifest.version}`).join(', ')}`,
      typeof user.token === 'string' && publish.code === 0 && notThere.length === 0,
      since,
      `${JSON.stringify(user)}\n${publish.output.slice(-4000)}\n${notThere.join('\n')}`,
    )
  ) {
    throw new Error('publishing failed');
  }

  // 3. Each package alone from the registry, side by side (their installs wait on the network).
  folders.push(
    ...(await Promise.all(
      packages.map((pkg) =>
        pkg.manifest.name === 'memdir' ? installCli(pkg, registry) : installAndRun(pkg, registry),
      ),
    )),
  );
} catch (error) {
  failed = true;
  console.log(`FAIL ${error.message}`);
} finally {
  await stop();
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
}

console.log('\n| step | result | time |');
console.log('|---|---|---:|');
for (const row of rows) console.log(`| ${row.step} | ${row.ok ? 'pass' : 'FAIL'} | ${row.seconds} s |`);
console.log(`\n(${seconds(started)}s)`);
console.log(`release:rehearsal: ${failed ? 'FAILED' : 'passed'}`);
process.exit(failed ? 1 : 0);
