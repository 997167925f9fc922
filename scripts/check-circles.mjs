#!/usr/bin/env node
// pnpm check:circles: no import circle in packages/*/src. dpdm reads every import (type-only ones
// and import() included, as a circle of types is still one a reader has to untangle) and resolves
// it to a file; the files that reach each other are grouped into circles, each printed as the list
// of its files with the imports that tie it. Exits 1 on any circle.
//
// `--self-test` runs the same check on a fixture of its own, two files tied by type-only imports
// beside a third that is not, and exits 1 unless it finds exactly that circle: a check that cannot
// fail shows here. `pnpm check:circles` runs both.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDependencyTree } from 'dpdm';

/** The sources every circle is looked for in, from the repository's root. */
const SOURCES = 'packages/*/src/**/*.ts';
/** A file of those sources (an import of another package resolves to its build, which is not). */
const SOURCE_FILE = /^packages\/[^/]+\/src\//;

/**
 * The circles of the import graph under `root`: its strongly connected components of more than one
 * file (or one file importing itself), each as its files and the imports between them, sorted.
 */
export async function findCircles(root, pattern = SOURCES) {
  const tree = await parseDependencyTree(pattern, { cwd: root, context: root, transform: false });
  const edges = new Map();
  for (const [file, dependencies] of Object.entries(tree)) {
    const name = relative(root, join(root, file));
    if (!SOURCE_FILE.test(name) || dependencies === null) continue;
    const targets = dependencies
      .filter((dependency) => dependency.id !== null)
      .map((dependency) => relative(root, join(root, dependency.id)))
      .filter((target) => SOURCE_FILE.test(target));
    edges.set(name, [...new Set(targets)]);
  }
  return stronglyConnected(edges)
    .filter((files) => files.length > 1 || (edges.get(files[0]) ?? []).includes(files[0]))
    .map((files) => {
      const members = new Set(files);
      const ties = files.flatMap((file) =>
        (edges.get(file) ?? []).filter((target) => members.has(target)).map((target) => [file, target]),
      );
      return { files: files.sort(), ties: ties.sort((a, b) => `${a}`.localeCompare(`${b}`)) };
    })
    .sort((a, b) => a.files[0].localeCompare(b.files[0]));
}

/** Tarjan's algorithm, iterative (a long chain of imports must not overflow the stack). */
function stronglyConnected(edges) {
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const components = [];
  let next = 0;
  for (const start of edges.keys()) {
    if (index.has(start)) continue;
    const work = [[start, 0]];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const [node, position] = frame;
      const targets = edges.get(node) ?? [];
      if (position < targets.length) {
        frame[1]++;
        const target = targets[position];
        if (!index.has(target)) {
          index.set(target, next);
          low.set(target, next++);
          stack.push(target);
          onStack.add(target);
          work.push([target, 0]);
        } else if (onStack.has(target)) low.set(node, Math.min(low.get(node), index.get(target)));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(node)));
      }
      if (low.get(node) === index.get(node)) {
        const component = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          component.push(member);
        } while (member !== node);
        components.push(component);
      }
    }
  }
  return components;
}

function print(circles) {
  circles.forEach((circle, number) => {
    console.log(`circle ${number + 1}: ${circle.files.length} files`);
    for (const file of circle.files) console.log(`  ${file}`);
    console.log('  tied by:');
    for (const [from, to] of circle.ties) console.log(`    ${from} -> ${to}`);
  });
}

/**
 * The fixture: a.ts and b.ts import each other's types only; c.ts imports a.ts and closes nothing.
 * Its tsconfig resolves `./b.js` to `b.ts`, as each package's does.
 */
async function selfTest() {
  const root = await mkdtemp(join(tmpdir(), 'memdir-circles-'));
  try {
    const src = join(root, 'packages', 'demo', 'src');
    await mkdir(src, { recursive: true });
    await writeFile(
      join(root, 'packages', 'demo', 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }),
    );
    await writeFile(join(src, 'a.ts'), "import type { B } from './b.js';\nexport interface A { b?: B }\n");
    await writeFile(join(src, 'b.ts'), "import type { A } from './a.js';\nexport interface B { a?: A }\n");
    await writeFile(join(src, 'c.ts'), "import type { A } from './a.js';\nexport const c: A = {};\n");
    const circles = await findCircles(root);
    const found = JSON.stringify(circles.map((circle) => circle.files));
    const expected = JSON.stringify([['packages/demo/src/a.ts', 'packages/demo/src/b.ts']]);
    if (found !== expected) {
      console.error(`check:circles --self-test: expected ${expected}, found ${found}`);
      return 1;
    }
    console.log('check:circles --self-test: the type-only circle a.ts <-> b.ts is found, c.ts is left out');
    return 0;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

async function main() {
  if (process.argv.includes('--self-test')) return selfTest();
  const root = fileURLToPath(new URL('..', import.meta.url));
  const circles = await findCircles(root);
  if (circles.length === 0) {
    console.log(`check:circles: no import circle in ${SOURCES}`);
    return 0;
  }
  print(circles);
  console.error(
    `check:circles: ${circles.length} import circle(s) in ${SOURCES}: break each at the import that closes it`,
  );
  return 1;
}

process.exitCode = await main();
