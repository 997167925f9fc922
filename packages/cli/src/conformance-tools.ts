// `memdir conformance` runs the suite in vitest, with fast-check for its property test. Neither is a
// dependency of memdir: `npx memdir serve` (what an MCP configuration runs) would otherwise install a
// test runner, a bundler and native binaries. They are optional peer dependencies, found here at the
// moment `conformance` is asked for.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliUsageError } from './errors.js';
import { resolveFromDirectory } from './store-url.js';

/** Where the test tools the suite needs live, as files Node can import. */
export interface ConformanceTools {
  /** `@memdir/core/conformance`, the suite. */
  suite: string;
  /** `vitest/node`: the runner, started in this process. */
  vitestNode: string;
  /** `vitest`: what the suite and the generated test file import (one instance with the runner). */
  vitest: string;
  /** The vitest version found. */
  vitestVersion: string;
}

/** The vitest majors this runner's reporter API is written for. */
const VITEST_MAJORS = [4];

/**
 * Finds vitest and fast-check where the suite will import them from: beside `@memdir/core`, the way
 * Node resolves its imports. The user's project needs them installed next to memdir.
 * @throws CliUsageError (exit 2) naming what is missing and how to install it.
 */
export function locateConformanceTools(): ConformanceTools {
  const suite = fileURLToPath(import.meta.resolve('@memdir/core/conformance'));
  const from = dirname(suite);
  const found = {
    vitest: safeResolve('vitest', '.', from),
    'vitest/node': safeResolve('vitest', './node', from),
    'fast-check': safeResolve('fast-check', '.', from),
  };
  const missing = ['vitest', 'fast-check'].filter((name) => found[name as keyof typeof found] === undefined);
  if (found['vitest/node'] === undefined && !missing.includes('vitest')) missing.unshift('vitest');
  if (missing.length > 0) {
    throw new CliUsageError(
      `conformance needs ${missing.join(' and ')}, which memdir does not install (the store commands and memdir serve do not need a test runner)`,
      {
        hint:
          'Install them next to memdir in your project: npm install --save-dev memdir vitest fast-check\n' +
          'or run it once with: npx -p memdir -p vitest -p fast-check memdir conformance ./my-store.ts',
      },
    );
  }
  const vitestVersion = packageVersion(found.vitest!, 'vitest');
  const major = Number(vitestVersion.split('.')[0]);
  if (!VITEST_MAJORS.includes(major)) {
    throw new CliUsageError(
      `conformance needs vitest ${VITEST_MAJORS.join(' or ')}.x, found ${vitestVersion}`,
      {
        hint: `Install a supported version next to memdir: npm install --save-dev vitest@${VITEST_MAJORS.at(-1)}`,
      },
    );
  }
  return { suite, vitestNode: found['vitest/node']!, vitest: found.vitest!, vitestVersion };
}

function safeResolve(name: string, subpath: string, from: string): string | undefined {
  try {
    return resolveFromDirectory(name, subpath, from);
  } catch {
    return undefined;
  }
}

/** The version in the package.json of the package that holds `file`. */
function packageVersion(file: string, name: string): string {
  for (let dir = dirname(file); dirname(dir) !== dir; dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === name && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // No package.json at this level: keep going up.
    }
  }
  return 'unknown';
}
