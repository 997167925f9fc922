#!/usr/bin/env node
// Adds up the JSON reports vitest wrote in every workspace package (see vitest.shared.ts) and
// prints one closing line, "N passed, N failed, N skipped", so a whole-repo run ends with a tally.
// Exits 1 when any test failed or when no test ran at all.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const folders = ['packages', 'examples', '.'].flatMap((group) => {
  if (group === '.') return ['bench'];
  const path = join(root, group);
  return existsSync(path) ? readdirSync(path).map((name) => join(group, name)) : [];
});

let passed = 0;
let failed = 0;
let skipped = 0;
for (const folder of folders) {
  const report = join(root, folder, 'test-results.json');
  if (!existsSync(report)) continue;
  const results = JSON.parse(readFileSync(report, 'utf8'));
  passed += results.numPassedTests;
  failed += results.numFailedTests;
  skipped += results.numPendingTests + results.numTodoTests;
  console.log(`${folder}: ${results.numPassedTests} passed, ${results.numFailedTests} failed`);
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
