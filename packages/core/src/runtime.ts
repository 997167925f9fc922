// The Node.js floor of every memdir package (`engines` in their package.json), checked when
// @memdir/core is first imported. Below it the packages load but then fail on every command: Node
// 18 has no global `crypto` (operation ids), so each call would end in "storage backend failed
// unexpectedly" with nothing saying why. Every package loads core, so this one check covers them
// all; it is imported first by each entry point of core.
//
// Bun and Deno report a Node.js version of their own (the Node API they provide); they are judged
// by it like Node itself.

/** The oldest Node.js release memdir runs on: 20.19 is the first 20.x with require(esm). */
export const MINIMUM_NODE_VERSION = '20.19.0';

/**
 * Why memdir cannot run on Node.js `version` (`process.versions.node`), or undefined when it can
 * (also when the version is not a Node.js version string at all: nothing to judge it by).
 */
export function unsupportedNodeVersion(version: string | undefined): string | undefined {
  const found = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version ?? '');
  if (found === null) return undefined;
  const [major, minor] = [Number(found[1]), Number(found[2])];
  const [minimumMajor, minimumMinor] = MINIMUM_NODE_VERSION.split('.').map(Number) as [number, number];
  if (major > minimumMajor || (major === minimumMajor && minor >= minimumMinor)) return undefined;
  return (
    `memdir requires Node.js ${MINIMUM_NODE_VERSION} or later (the "engines" of its packages); ` +
    `this is Node.js ${version?.replace(/^v/, '')}. Upgrade Node.js to 20.19 or a later release (22 or 24).`
  );
}

const problem = unsupportedNodeVersion(globalThis.process?.versions?.node);
if (problem !== undefined) throw new Error(problem);
