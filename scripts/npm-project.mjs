// What the package scripts share (check-packages.mjs, check-peer-ranges.mjs, release-rehearsal.mjs,
// check-runtimes.mjs): running a command, packing the workspace packages as they would be
// published, and making a fresh npm project outside the workspace, as a user would.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = new URL('..', import.meta.url).pathname;
export const BIN = join(ROOT, 'node_modules', '.bin');

/** Runs a command to its end: exit code, stdout, and stdout + stderr as one text. */
export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  return {
    code: result.status,
    output: `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? `\n${result.error.message}` : ''}`,
    stdout: result.stdout ?? '',
  };
}

/**
 * The same, without blocking the event loop. With `deadlineMs`, the command and every process it
 * started (its process group) are killed once that has passed, and `timedOut` is true.
 */
export function runAsync(command, args, { deadlineMs, ...options } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...options,
      detached: deadlineMs !== undefined,
    });
    let timedOut = false;
    const timer =
      deadlineMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            try {
              process.kill(-child.pid, 'SIGKILL');
            } catch {
              // Gone already.
            }
          }, deadlineMs);
    let stdout = '';
    let output = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, output: `${output}\n${error.message}`, timedOut });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, output, timedOut });
    });
  });
}

export function readJson(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** The workspace packages that are published: packages/* with a package.json that is not private. */
export function publishedPackages() {
  const dir = join(ROOT, 'packages');
  return readdirSync(dir)
    .filter((name) => existsSync(join(dir, name, 'package.json')))
    .map((name) => ({
      dir: name,
      path: join(dir, name),
      manifest: readJson(join(dir, name, 'package.json')),
    }))
    .filter(({ manifest }) => manifest.private !== true)
    .sort((a, b) => a.manifest.name.localeCompare(b.manifest.name));
}

/** The file name `pnpm pack` gives a package's tarball. */
export function tarballName(manifest) {
  return `${manifest.name.replace('@', '').replace('/', '-')}-${manifest.version}.tgz`;
}

/**
 * Packs a workspace package with `pnpm pack` (which turns `workspace:` ranges into real ones, as
 * `pnpm publish` does) into `destination`. Resolves to the tarball's path, or undefined with the
 * output when packing failed.
 */
export function pack(pkg, destination) {
  const result = run('pnpm', ['pack', '--pack-destination', destination], { cwd: pkg.path });
  const file = readdirSync(destination).find((name) => name === tarballName(pkg.manifest));
  return { tarball: file === undefined ? undefined : join(destination, file), result };
}

/** npm with nothing it would print besides errors, and no audit or funding requests. */
export const QUIET = ['--no-audit', '--no-fund', '--loglevel=error'];

/**
 * A fresh npm project in a temporary folder outside the workspace: a package.json with
 * `dependencies` (and `overrides`, for workspace siblings depended on by tarball), then
 * `npm install` with `installArgs`. Resolves to the folder and the install's result.
 */
export async function freshProject(name, dependencies, options = {}) {
  const dir = await mkdtemp(join(tmpdir(), `memdir-${name}-`));
  const manifest = { name: `check-${name}`, private: true, type: 'module', dependencies };
  if (options.overrides && Object.keys(options.overrides).length > 0) manifest.overrides = options.overrides;
  await writeFile(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  if (options.npmrc !== undefined) await writeFile(join(dir, '.npmrc'), options.npmrc);
  const install = await runAsync('npm', ['install', ...QUIET, ...(options.installArgs ?? [])], {
    cwd: dir,
    env: options.env ?? process.env,
  });
  return { dir, install };
}

/** Indents a command's output under a result line. */
export function indent(text, by = '       ') {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => `${by}${line}`)
    .join('\n');
}
