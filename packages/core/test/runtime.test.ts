// The Node.js floor, checked at import (src/runtime.ts). The real refusal, on a Node 18 binary from
// the npm registry, is in scripts/check-runtimes.mjs (run by .ci/run).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MINIMUM_NODE_VERSION, unsupportedNodeVersion } from '../src/runtime.js';

describe('the Node.js version check', () => {
  it('refuses Node 18 with the floor and the version found', () => {
    expect(unsupportedNodeVersion('18.20.8')).toBe(
      'memdir requires Node.js 20.19.0 or later (the "engines" of its packages); this is Node.js 18.20.8. Upgrade Node.js to 20.19 or a later release (22 or 24).',
    );
  });

  it('refuses the 20.x releases before 20.19, which have no require(esm)', () => {
    expect(unsupportedNodeVersion('20.18.3')).toContain('this is Node.js 20.18.3.');
    expect(unsupportedNodeVersion('v20.0.0')).toContain('this is Node.js 20.0.0.');
  });

  it('accepts 20.19 and every later release, Bun and Deno included (they report 26.x)', () => {
    for (const version of ['20.19.0', '20.20.2', '21.0.0', '22.23.3', '24.21.0', '26.3.0', '100.0.0']) {
      expect(unsupportedNodeVersion(version), version).toBeUndefined();
    }
  });

  it('judges nothing it cannot read (a runtime with no Node.js version)', () => {
    expect(unsupportedNodeVersion(undefined)).toBeUndefined();
    expect(unsupportedNodeVersion('')).toBeUndefined();
    expect(unsupportedNodeVersion('not a version')).toBeUndefined();
  });

  it('names the floor that the package.json "engines" gives', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(manifest.engines.node).toBe(`>=${MINIMUM_NODE_VERSION}`);
  });
});
