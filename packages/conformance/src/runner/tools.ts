// The runner starts vitest, with fast-check for the suite's property test: peer dependencies of this
// package, found here, where the suite imports them from, before anything runs. One missing (a
// package manager that does not install peers), or a vitest whose reporter API the runner was not
// written for, is a usage error that says what to install.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunnerCommand } from './command.js';
import { ConformanceUsageError } from './usage-error.js';

/** Where the test tools the suite needs live, as files Node can import. */
export interface ConformanceTools {
  /** `@memdir/conformance`, the suite. */
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
 * Finds vitest and fast-check where the suite will import them from: beside this package, the way
 * Node resolves its imports. The user's project needs them installed next to it.
 * @throws ConformanceUsageError (exit 2) naming what is missing and how to install it.
 */
export function locateConformanceTools(command: RunnerCommand): ConformanceTools {
  const suite = fileURLToPath(new URL('../index.js', import.meta.url));
  const found = {
    vitest: safeResolve('vitest'),
    'vitest/node': safeResolve('vitest/node'),
    'fast-check': safeResolve('fast-check'),
  };
  const missing = ['vitest', 'fast-check'].filter((name) => found[name as keyof typeof found] === undefined);
  if (found['vitest/node'] === undefined && !missing.includes('vitest')) missing.unshift('vitest');
  if (missing.length > 0) {
    const packages = [...command.installs, 'vitest', 'fast-check'];
    throw new ConformanceUsageError(
      `conformance needs ${missing.join(' and ')}, which memdir does not install (the store commands and memdir serve do not need a test runner)`,
      {
        hint:
          `Install them next to ${command.installs[0]} in your project: npm install --save-dev ${packages.join(' ')}\n` +
          `or run it once with: npx ${packages.map((name) => `-p ${name}`).join(' ')} ${command.name} ./my-store.ts`,
      },
    );
  }
  const vitestVersion = packageVersion(found.vitest!, 'vitest');
  const major = Number(vitestVersion.split('.')[0]);
  if (!VITEST_MAJORS.includes(major)) {
    throw new ConformanceUsageError(
      `conformance needs vitest ${VITEST_MAJORS.join(' or ')}.x, found ${vitestVersion}`,
      {
        hint: `Install a supported version next to ${command.installs[0]}: npm install --save-dev vitest@${VITEST_MAJORS.at(-1)}`,
      },
    );
  }
  return { suite, vitestNode: found['vitest/node']!, vitest: found.vitest!, vitestVersion };
}

function safeResolve(specifier: string): string | undefined {
  try {
    return fileURLToPath(import.meta.resolve(specifier));
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
