#!/usr/bin/env node
// pnpm check:peer-ranges: each server adapter's peer range holds at both ends. For the lowest and
// the newest version its range allows of its client (ioredis, pg, @aws-sdk/client-s3), one fresh npm
// project outside the workspace gets every adapter's packed tarball, @memdir/core's and
// @memdir/conformance's, and those client versions, installed with --strict-peer-deps (an ERESOLVE fails the install) and then
// `npm ls` (which reports a peer out of range). A short conformance subset then runs in each
// project against the real servers named by the environment (REDIS_URL, DATABASE_URL, S3_ENDPOINT,
// S3_BUCKET, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, S3_REGION), as exported by .ci/run or
// `scripts/services.sh env`; a missing server fails the check, never skips it. Run after `pnpm build`.
//
// `--try ioredis@5.2.0` (repeatable) runs a project with that client version instead (out of range
// too, installed with --legacy-peer-deps), for finding a floor; --keep keeps the projects. Prints the matrix as a table; exits 1
// when a cell fails.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONFORMANCE_SUBSET, CONFORMANCE_SUBSET_GROUPS, subsetPattern } from './conformance-subset.mjs';
import { freshProject, indent, pack, publishedPackages, run, runAsync } from './npm-project.mjs';

/** The filter of describeMemoryStore for the subset, as source text for the generated test files. */
const FILTER = `{ groups: ${JSON.stringify(CONFORMANCE_SUBSET_GROUPS)}, tests: new RegExp(${JSON.stringify(subsetPattern())}) }`;
const TEST_TOOLS = { vitest: '4.1.12', 'fast-check': '4.11.0' };
/** An AWS SDK below the range: it drops If-None-Match, which the S3 store must say. */
const OLD_SDK = '3.600.0';
/** The longest one project's tests may take (they take about 30 s on 2 busy cores). */
const TESTS_DEADLINE_MS = 240_000;
/** Every test run of one project gets keys, schemas and prefixes of its own on the shared servers. */
const RUN = randomBytes(4).toString('hex');

/**
 * The conformance target of each adapter in the fresh project: its store on the server the
 * environment names, and how to remove a backend's data afterwards (with the client under test).
 */
const ADAPTERS = {
  '@memdir/redis': {
    client: 'ioredis',
    env: ['REDIS_URL'],
    test: (run) => `
import { Redis } from 'ioredis';
import { afterAll } from 'vitest';
import { describeMemoryStore } from '@memdir/conformance';
import { createRedisStore } from '@memdir/redis';

const admin = new Redis(process.env.REDIS_URL, { lazyConnect: true });
admin.on('error', () => {});
afterAll(() => admin.quit());
const prefix = (backend) => \`mpr:${run}:\${backend}:\`;

describeMemoryStore(
  {
    name: 'redis',
    create: (options, backend) => createRedisStore({ ...options, url: process.env.REDIS_URL, keyPrefix: prefix(backend) }),
    destroy: async (backend) => {
      const keys = [];
      for await (const found of admin.scanStream({ match: \`\${prefix(backend)}*\`, count: 1000 })) keys.push(...found);
      if (keys.length > 0) await admin.del(...keys);
    },
  },
  ${FILTER},
);
`,
  },
  '@memdir/postgres': {
    client: 'pg',
    env: ['DATABASE_URL'],
    test: (run) => `
import pg from 'pg';
import { afterAll } from 'vitest';
import { describeMemoryStore } from '@memdir/conformance';
import { createPostgresStore } from '@memdir/postgres';

const admin = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
afterAll(() => admin.end());
const schema = (backend) => \`mpr_${run}_\${backend}\`;

describeMemoryStore(
  {
    name: 'postgres',
    create: (options, backend) =>
      createPostgresStore({ ...options, connectionString: process.env.DATABASE_URL, schema: schema(backend) }),
    destroy: (backend) => admin.query(\`DROP SCHEMA IF EXISTS "\${schema(backend)}" CASCADE\`),
  },
  ${FILTER},
);
`,
  },
  '@memdir/s3': {
    client: '@aws-sdk/client-s3',
    env: ['S3_ENDPOINT', 'S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'],
    test: (run) => `
import { createHash } from 'node:crypto';
import { DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll } from 'vitest';
import { describeMemoryStore } from '@memdir/conformance';
import { createS3Store } from '@memdir/s3';

const server = {
  endpoint: process.env.S3_ENDPOINT,
  region: process.env.S3_REGION || 'us-east-1',
  credentials: { accessKeyId: process.env.S3_ACCESS_KEY_ID, secretAccessKey: process.env.S3_SECRET_ACCESS_KEY },
};
const bucket = process.env.S3_BUCKET;
const admin = new S3Client({ ...server, forcePathStyle: true });
afterAll(() => admin.destroy());
// Of one length for every backend: the longest path the store takes depends on its prefix's length.
const prefix = (backend) => \`peer-ranges/${run}/\${createHash('sha256').update(backend).digest('hex').slice(0, 16)}\`;

describeMemoryStore(
  {
    name: 's3',
    create: (options, backend) => createS3Store({ ...options, ...server, bucket, prefix: prefix(backend) }),
    destroy: async (backend) => {
      let token;
      do {
        const page = await admin.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: \`\${prefix(backend)}/\`, ContinuationToken: token }),
        );
        const keys = (page.Contents ?? []).map(({ Key }) => ({ Key }));
        if (keys.length > 0) await admin.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys, Quiet: true } }));
        token = page.NextContinuationToken;
      } while (token);
    },
    timeout: 60_000,
  },
  ${FILTER},
);
`,
  },
};

// --- versions ----------------------------------------------------------------------------------

function compareVersions(a, b) {
  const [x, y] = [a, b].map((version) => version.split(/[.+-]/).slice(0, 3).map(Number));
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return 0;
}

/** The lowest version a range allows: the smallest floor of its `||` alternatives (`^5.3.0 || ^6`). */
function lowestOf(range) {
  const floors = range.split('||').map((alternative) => {
    const found = /(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(alternative);
    if (found === null) throw new Error(`cannot read a floor from the range ${JSON.stringify(range)}`);
    return `${found[1]}.${found[2] ?? 0}.${found[3] ?? 0}`;
  });
  return floors.sort(compareVersions)[0];
}

/** The newest published version the range allows (one registry request). */
function newestOf(name, range) {
  const view = run('npm', ['view', `${name}@${range}`, 'version', '--json']);
  if (view.code !== 0) throw new Error(`npm view ${name}@${range} failed:\n${view.output}`);
  const versions = [JSON.parse(view.stdout)].flat();
  return versions.sort(compareVersions).at(-1);
}

// --- main --------------------------------------------------------------------------------------

const started = Date.now();
const adapters = publishedPackages().filter(({ manifest }) => ADAPTERS[manifest.name] !== undefined);
const missingEnv = adapters.flatMap(({ manifest }) =>
  ADAPTERS[manifest.name].env.filter((name) => !process.env[name]),
);
if (missingEnv.length > 0) {
  console.error(
    `check:peer-ranges needs the servers' variables: ${missingEnv.join(', ')} unset (see scripts/services.sh env, or source what .ci/run exports)`,
  );
  process.exit(1);
}

const tries = process.argv.flatMap((arg, i) => (process.argv[i - 1] === '--try' ? [arg] : []));
const columns = [];
const ranges = {};
for (const { manifest } of adapters) {
  const client = ADAPTERS[manifest.name].client;
  ranges[manifest.name] = manifest.peerDependencies?.[client];
  if (ranges[manifest.name] === undefined) {
    console.error(`${manifest.name} declares no peer range for ${client}`);
    process.exit(1);
  }
}
for (const end of tries.length > 0 ? [] : ['lowest', 'newest']) {
  const versions = {};
  for (const { manifest } of adapters) {
    const range = ranges[manifest.name];
    const client = ADAPTERS[manifest.name].client;
    versions[manifest.name] = end === 'lowest' ? lowestOf(range) : newestOf(client, range);
  }
  columns.push({ label: end, versions, strict: true });
}
for (const spec of tries) {
  const at = spec.lastIndexOf('@');
  const [client, version] = [spec.slice(0, at), spec.slice(at + 1)];
  const adapter = Object.keys(ADAPTERS).find((name) => ADAPTERS[name].client === client);
  if (adapter === undefined || at <= 0) throw new Error(`--try ${spec}: not a client of an adapter`);
  columns.push({ label: `try ${spec}`, versions: { [adapter]: version }, strict: false });
}

const work = await mkdtemp(join(tmpdir(), 'memdir-peer-ranges-'));
const folders = [work];
const cells = {};
let failed = false;
try {
  const tarballDir = join(work, 'tarballs');
  await mkdir(tarballDir);
  const tarballs = {};
  const packed = publishedPackages().filter(
    ({ manifest }) =>
      ['@memdir/core', '@memdir/conformance'].includes(manifest.name) || ADAPTERS[manifest.name],
  );
  for (const pkg of packed) {
    const { tarball, result } = pack(pkg, tarballDir);
    if (tarball === undefined) throw new Error(`pnpm pack of ${pkg.manifest.name} failed:\n${result.output}`);
    tarballs[pkg.manifest.name] = `file:${tarball}`;
  }
  // The columns side by side: their installs wait on the network, their tests on the servers.
  const reports = await Promise.all([
    ...columns.map((column, index) => runColumn(column, index, tarballs)),
    ...(tries.length > 0 ? [] : [checkOldSdk(tarballs)]),
  ]);
  for (const report of reports) console.log(report);
} finally {
  if (process.argv.includes('--keep')) console.log(`kept: ${folders.join(' ')}`);
  else for (const folder of folders) await rm(folder, { recursive: true, force: true });
}

/** One column of the matrix: its fresh project, its install, its tests. Resolves to its report. */
async function runColumn(column, index, tarballs) {
  const lines = [];
  const names = Object.keys(column.versions);
  const dependencies = {
    '@memdir/core': tarballs['@memdir/core'],
    '@memdir/conformance': tarballs['@memdir/conformance'],
    ...TEST_TOOLS,
  };
  for (const name of names) {
    dependencies[name] = tarballs[name];
    dependencies[ADAPTERS[name].client] = column.versions[name];
  }
  const columnStarted = Date.now();
  const project = await freshProject(`peer-${column.label.replace(/\W+/g, '-')}`, dependencies, {
    installArgs: [column.strict ? '--strict-peer-deps' : '--legacy-peer-deps'],
  });
  folders.push(project.dir);
  const installed = project.install.code === 0 && !/ERESOLVE/.test(project.install.output);
  const ls = installed
    ? await runAsync('npm', ['ls', '--all'], { cwd: project.dir })
    : { code: 1, output: '' };
  const installSeconds = ((Date.now() - columnStarted) / 1000).toFixed(0);
  if (!installed || (column.strict && ls.code !== 0)) {
    failed = true;
    for (const name of names) {
      cells[`${name} ${column.label}`] = { version: column.versions[name], ok: false, why: 'install' };
    }
    return `FAIL ${column.label}: npm install (${installSeconds}s)\n${indent(`${project.install.output}\n${ls.output}`)}`;
  }
  for (const name of names) {
    await writeFile(
      join(project.dir, `${name.split('/')[1]}.test.mjs`),
      ADAPTERS[name].test(`${RUN}${index}`),
    );
  }
  // A try stops at its first failure (all it needs to know); a client that hangs (an old AWS SDK
  // waiting on `Expect: 100-continue`) is stopped at TESTS_DEADLINE_MS.
  const tests = await runAsync(
    join(project.dir, 'node_modules', '.bin', 'vitest'),
    [
      'run',
      '--reporter=json',
      '--outputFile=results.json',
      '--reporter=dot',
      ...(column.strict ? [] : ['--bail=1']),
    ],
    { cwd: project.dir, deadlineMs: TESTS_DEADLINE_MS },
  );
  const results = readResults(join(project.dir, 'results.json'));
  for (const name of names) {
    const file = results.find((result) => result.name.endsWith(`${name.split('/')[1]}.test.mjs`));
    const passed = file?.assertionResults.filter((test) => test.status === 'passed').length ?? 0;
    const total = file?.assertionResults.length ?? 0;
    const ok =
      !tests.timedOut && file !== undefined && file.status === 'passed' && total > 0 && passed === total;
    cells[`${name} ${column.label}`] = { version: column.versions[name], ok, passed, total };
    if (!ok) failed = true;
    const failures = (file?.assertionResults ?? [])
      .filter((test) => test.status === 'failed')
      .slice(0, 3)
      .map(
        (test) =>
          `${test.fullName}\n${(test.failureMessages ?? []).join('\n').split('\n').slice(0, 6).join('\n')}`,
      )
      .join('\n\n');
    lines.push(
      `${ok ? 'ok  ' : 'FAIL'} ${name} with ${ADAPTERS[name].client}@${column.versions[name]} (${column.label}): ${passed}/${total} conformance tests${tests.timedOut ? `, stopped after ${TESTS_DEADLINE_MS / 1000}s` : ''}${ok ? '' : `\n${indent(failures || file?.message || tests.output.slice(-3000))}`}`,
    );
  }
  lines.push(
    `     (${column.label}: install ${installSeconds}s, all ${((Date.now() - columnStarted) / 1000).toFixed(0)}s)`,
  );
  return lines.join('\n');
}

/** vitest's JSON report: one entry per test file, with its tests. */
function readResults(path) {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')).testResults ?? []) : [];
}

/**
 * Below the floor, where it matters most: an AWS SDK that drops the conditions (3.600 drops
 * If-None-Match) must be named as such, with the version memdir needs, not blamed on the server.
 */
async function checkOldSdk(tarballs) {
  const version = OLD_SDK;
  const project = await freshProject(
    'peer-old-sdk',
    {
      '@memdir/core': tarballs['@memdir/core'],
      '@memdir/s3': tarballs['@memdir/s3'],
      '@aws-sdk/client-s3': version,
    },
    { installArgs: ['--legacy-peer-deps'] },
  );
  folders.push(project.dir);
  const floor = lowestOf(ranges['@memdir/s3']);
  await writeFile(
    join(project.dir, 'old-sdk.mjs'),
    `import { createS3Store } from '@memdir/s3';
const store = createS3Store({
  bucket: process.env.S3_BUCKET,
  prefix: 'peer-ranges/${RUN}/old-sdk',
  endpoint: process.env.S3_ENDPOINT,
  region: process.env.S3_REGION || 'us-east-1',
  credentials: { accessKeyId: process.env.S3_ACCESS_KEY_ID, secretAccessKey: process.env.S3_SECRET_ACCESS_KEY },
});
try {
  await store.create({ command: 'create', path: '/memories/a.md', file_text: 'x' });
  console.log('created');
} catch (error) {
  console.log(error.code, error.message);
} finally {
  await store.close();
}
`,
  );
  const result =
    project.install.code === 0
      ? await runAsync(process.execPath, ['old-sdk.mjs'], { cwd: project.dir })
      : project.install;
  const expected = `BACKEND The memory store is unavailable: @aws-sdk/client-s3 ${version} does not send If-Match and If-None-Match on PutObject, which memdir needs to keep files safe: upgrade it to ${floor} or later. Trying again will not help until the store's configuration is fixed.`;
  const ok = result.stdout.trim() === expected;
  if (!ok) failed = true;
  return `${ok ? 'ok  ' : 'FAIL'} @memdir/s3 with @aws-sdk/client-s3@${version} (below the range) says the SDK drops the conditions and names ${floor}${ok ? '' : `\n${indent(`expected: ${expected}\n${result.output.slice(-2000)}`)}`}`;
}

console.log(
  `\nPeer ranges (${CONFORMANCE_SUBSET.length} conformance tests, twice each, against the real servers):\n`,
);
console.log(`| adapter | client, range | ${columns.map((column) => column.label).join(' | ')} |`);
console.log(`|---|---|${columns.map(() => '---|').join('')}`);
for (const { manifest } of adapters) {
  const cellsOf = columns.map((column) => {
    const cell = cells[`${manifest.name} ${column.label}`];
    if (cell === undefined) return '';
    const what = cell.why === 'install' ? 'install failed' : `${cell.passed}/${cell.total}`;
    return `${cell.version}: ${cell.ok ? 'pass' : 'FAIL'} (${what})`;
  });
  console.log(
    `| ${manifest.name} | ${ADAPTERS[manifest.name].client} \`${ranges[manifest.name]}\` | ${cellsOf.join(' | ')} |`,
  );
}
console.log(`\n(${((Date.now() - started) / 1000).toFixed(0)}s)`);
console.log(`check:peer-ranges: ${failed ? 'FAILED' : 'passed'}`);
process.exit(failed ? 1 : 0);
