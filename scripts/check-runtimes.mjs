#!/usr/bin/env node
// pnpm check:runtimes: memdir on the Node.js releases users run besides the one CI runs on (20).
// Each Node binary comes from the npm registry (`npm i node@22` in a temporary project), so the
// check needs nothing but npm. Run after `pnpm build`, with the servers' variables set (REDIS_URL,
// REDIS_CLUSTER_URLS), as .ci/run exports them.
//
// - Node 22 and Node 24, side by side: the smoke set. The @memdir/core, @memdir/conformance and
//   @memdir/fs suites in full, the quickstart example (its output must equal Node 20's, byte for byte), and one server
//   adapter: @memdir/redis's README examples and a conformance subset (conformance-subset.mjs) on
//   its four targets.
// - Node 18, below the `engines` floor: importing @memdir/core, and running `memdir`, must fail at
//   once with the message of packages/core/src/runtime.ts.
// - `--try-bun-deno` also runs the quickstart and every package's README example on Bun and Deno
//   (npm packages too), which the README lists as tried, not tested.
//
// Prints a table of each step's result and time; exits 1 when a step fails.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { subsetPattern } from './conformance-subset.mjs';
import { freshProject, indent, ROOT, runAsync } from './npm-project.mjs';
import { readmeExample } from './readme-example.mjs';

/** The Node.js releases of the smoke set, and the one below the floor. */
const SMOKE_NODES = ['22', '24'];
const TOO_OLD_NODE = '18';
/** The message of packages/core/src/runtime.ts, for the Node version found. */
const tooOld = (version) =>
  `memdir requires Node.js 20.19.0 or later (the "engines" of its packages); this is Node.js ${version}. Upgrade Node.js to 20.19 or a later release (22 or 24).`;
/** The longest one step may take before it is stopped and failed. */
const STEP_DEADLINE_MS = 600_000;
/** The packages whose README example Bun and Deno try (the Redis Cluster one by name). */
const README_EXAMPLES = [['core'], ['fs'], ['redis'], ['redis', 'cluster'], ['postgres'], ['s3'], ['otel']];

const started = Date.now();
const rows = [];
let failed = false;

function record(step, runtime, ok, seconds, detail = '') {
  rows.push({ step, runtime, ok, seconds });
  if (!ok) failed = true;
  console.log(
    `${ok ? 'ok  ' : 'FAIL'} ${runtime}: ${step} (${seconds}s)${ok || !detail ? '' : `\n${indent(detail)}`}`,
  );
}

const seconds = (since) => ((Date.now() - since) / 1000).toFixed(0);

/** A runtime from the npm registry (`node@22`, `bun`), in a project of its own: its binary's path. */
async function installRuntime(spec, binary, folders) {
  const since = Date.now();
  const project = await freshProject(`runtime-${spec.replace(/\W+/g, '-')}`, {
    [spec.split('@')[0]]: spec.split('@')[1] ?? 'latest',
  });
  folders.push(project.dir);
  const path = join(project.dir, 'node_modules', '.bin', binary);
  const answer = await runAsync(path, ['--version']);
  // `v22.23.3`, `1.4.5`, or `deno 2.9.6 (stable, ...)` and more lines.
  const version = /(\d+\.\d+\.\d+)/.exec(answer.stdout)?.[1] ?? '?';
  const ok = project.install.code === 0 && answer.code === 0;
  record(`npm i ${spec}`, `${binary} ${version}`, ok, seconds(since), project.install.output);
  return ok ? { path, version } : undefined;
}

/** The environment for a child run by `node`: that Node first on PATH, for whatever it starts. */
function envFor(node) {
  return { ...process.env, PATH: `${dirname(node)}:${process.env.PATH}` };
}

/** A package's vitest suite (or some of its files and tests) on the given Node. */
async function vitest(node, label, packageDir, args, reportDir) {
  const since = Date.now();
  const report = join(reportDir, `${label.replace(/\W+/g, '-')}.json`);
  const result = await runAsync(
    node,
    [
      join(packageDir, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      '--reporter=dot',
      '--reporter=json',
      `--outputFile.json=${report}`,
      ...args,
    ],
    { cwd: packageDir, env: envFor(node), deadlineMs: STEP_DEADLINE_MS },
  );
  let summary = '';
  try {
    const json = JSON.parse(readFileSync(report, 'utf8'));
    summary = `${json.numPassedTests}/${json.numTotalTests} tests`;
  } catch {
    summary = 'no report';
  }
  return {
    ok: result.code === 0 && !result.timedOut,
    summary,
    seconds: seconds(since),
    output: result.output,
  };
}

/** The smoke set on one Node release. */
async function smoke(node, reportDir, quickstartOutput) {
  const runtime = `Node ${node.version}`;
  for (const [label, dir, args] of [
    ['@memdir/core suite', 'packages/core', []],
    ['@memdir/conformance suite', 'packages/conformance', []],
    ['@memdir/fs suite', 'packages/fs', []],
    [
      '@memdir/redis README examples and conformance subset',
      'packages/redis',
      ['test/readme.test.ts', 'test/conformance.test.ts', '-t', subsetPattern('') + '|README'],
    ],
  ]) {
    const run = await vitest(node.path, `${label} ${node.version}`, join(ROOT, dir), args, reportDir);
    record(`${label} (${run.summary})`, runtime, run.ok, run.seconds, run.output.slice(-4000));
  }
  const since = Date.now();
  const quickstart = await runAsync(node.path, [join(ROOT, 'examples/quickstart/dist/index.js')], {
    cwd: join(ROOT, 'examples/quickstart'),
    env: envFor(node.path),
  });
  record(
    'quickstart: the same output as on Node 20',
    runtime,
    quickstart.code === 0 && quickstart.stdout === quickstartOutput,
    seconds(since),
    quickstart.output.slice(-3000),
  );
}

/** Below the floor: a clear error at import, and from the CLI, before anything runs. */
async function refusal(node) {
  const runtime = `Node ${node.version}`;
  const since = Date.now();
  const expected = tooOld(node.version);
  const imported = await runAsync(
    node.path,
    [
      '--input-type=module',
      '-e',
      `import(${JSON.stringify(join(ROOT, 'packages/fs/dist/index.js'))}).then(() => console.log('loaded'), (error) => console.log(error.message))`,
    ],
    { env: envFor(node.path) },
  );
  record(
    'import @memdir/fs fails with the engines message',
    runtime,
    imported.stdout.trim() === expected,
    seconds(since),
    `expected: ${expected}\n${imported.output}`,
  );
  const cli = await runAsync(node.path, [join(ROOT, 'packages/cli/dist/bin.js'), '--version'], {
    env: envFor(node.path),
  });
  record(
    'memdir --version fails with the engines message',
    runtime,
    cli.code !== 0 && cli.output.includes(`Error: ${expected}`),
    seconds(since),
    cli.output,
  );
}

/** Bun or Deno on the quickstart and on each package's README example, as Node runs them. */
async function tryRuntime(runtime, command, quickstartOutput) {
  const since = Date.now();
  const quickstart = await runAsync(
    command[0],
    [...command.slice(1), join(ROOT, 'examples/quickstart/dist/index.js')],
    {
      cwd: join(ROOT, 'examples/quickstart'),
    },
  );
  record(
    'quickstart: the same output as on Node 20',
    runtime,
    quickstart.code === 0 && quickstart.stdout === quickstartOutput,
    seconds(since),
    quickstart.output.slice(-2000),
  );
  for (const [pkg, name] of README_EXAMPLES) {
    const exampleSince = Date.now();
    const packageDir = join(ROOT, 'packages', pkg);
    const example = readmeExample(join(packageDir, 'README.md'), name === undefined ? {} : { name });
    const { outputText } = ts.transpileModule(example.code, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    // Inside the package, as scripts/readme-example.mjs runs it, so its imports resolve the same way.
    const folder = await mkdtemp(join(packageDir, '.readme-run-'));
    try {
      await writeFile(join(folder, 'example.mjs'), outputText);
      const run = await runAsync(command[0], [...command.slice(1), 'example.mjs'], {
        cwd: folder,
        deadlineMs: 60_000,
      });
      record(
        `README example of ${pkg}${name ? ` (${name})` : ''}`,
        runtime,
        run.code === 0 && run.stdout === example.expectedOutput,
        seconds(exampleSince),
        run.output.slice(-2000),
      );
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }
}

// --- main --------------------------------------------------------------------------------------

const missing = ['REDIS_URL', 'REDIS_CLUSTER_URLS'].filter((name) => !process.env[name]);
if (missing.length > 0) {
  console.error(
    `check:runtimes needs the servers' variables: ${missing.join(', ')} unset (see scripts/services.sh env)`,
  );
  process.exit(1);
}
const tryBunDeno = process.argv.includes('--try-bun-deno');
const folders = [];
const reportDir = await mkdtemp(join(tmpdir(), 'memdir-runtimes-reports-'));
folders.push(reportDir);
try {
  const baseline = await runAsync(process.execPath, [join(ROOT, 'examples/quickstart/dist/index.js')], {
    cwd: join(ROOT, 'examples/quickstart'),
  });
  if (baseline.code !== 0)
    throw new Error(`the quickstart fails on Node ${process.versions.node}:\n${baseline.output}`);
  const [old, ...smokeNodes] = await Promise.all(
    [TOO_OLD_NODE, ...SMOKE_NODES].map((major) => installRuntime(`node@${major}`, 'node', folders)),
  );
  const others = tryBunDeno
    ? await Promise.all([installRuntime('bun', 'bun', folders), installRuntime('deno', 'deno', folders)])
    : [];
  await Promise.all([
    ...(old === undefined ? [] : [refusal(old)]),
    ...smokeNodes.filter((node) => node !== undefined).map((node) => smoke(node, reportDir, baseline.stdout)),
  ]);
  const [bun, deno] = others;
  if (bun !== undefined) await tryRuntime(`Bun ${bun.version}`, [bun.path], baseline.stdout);
  if (deno !== undefined) await tryRuntime(`Deno ${deno.version}`, [deno.path, 'run', '-A'], baseline.stdout);
} finally {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
}

console.log('\n| runtime | step | result | time |');
console.log('|---|---|---|---:|');
for (const row of rows)
  console.log(`| ${row.runtime} | ${row.step} | ${row.ok ? 'pass' : 'FAIL'} | ${row.seconds} s |`);
console.log(`\n(${seconds(started)}s)`);
console.log(`check:runtimes: ${failed ? 'FAILED' : 'passed'}`);
process.exit(failed ? 1 : 0);
