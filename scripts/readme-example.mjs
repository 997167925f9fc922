// Runs the main example of a README as a user would run it: the code block copied as is, saved as a
// module, run with `node` in a fresh folder. Each published package's test/readme.test.ts calls it,
// so a README whose example stops working fails the tests (pnpm check:packages checks that every
// published package has that test). Types: readme-example.d.mts.
//
// The example runs inside the package's own folder (in `.readme-run-*/`, removed afterwards), so its
// imports resolve as they would for a user who installed the package: the package itself through its
// `exports` (a self-reference), the rest from the package's dependencies and devDependencies.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * The comment that marks the example to run when it is not the README's first ts/js block; a
 * README's other examples under test are marked with a name, `<!-- readme-example: cluster -->`.
 */
const MARKER = '<!-- readme-example -->';
const namedMarker = (name) => `<!-- readme-example: ${name} -->`;

const FENCE = /^```([\w-]*)[^\n]*\n([\s\S]*?)^```/gm;

function toPath(location) {
  return location instanceof URL ? fileURLToPath(location) : location;
}

/**
 * The README's main example: the code block right after `<!-- readme-example -->`, or else the first
 * block in TypeScript or JavaScript. `languages` narrows the search (`sh` for a shell transcript);
 * `name` picks the block after `<!-- readme-example: {name} -->` instead.
 */
export function readmeExample(readme, options = {}) {
  const text = readFileSync(toPath(readme), 'utf8');
  const languages = options.languages ?? ['ts', 'typescript', 'js', 'javascript', 'mjs'];
  const blocks = [...text.matchAll(FENCE)].map((match) => {
    const before = text.slice(0, match.index).trimEnd();
    return {
      language: match[1],
      code: match[2],
      line: text.slice(0, match.index).split('\n').length,
      marked: before.endsWith(MARKER),
      named: options.name !== undefined && before.endsWith(namedMarker(options.name)),
    };
  });
  const block =
    options.name !== undefined
      ? blocks.find((candidate) => candidate.named)
      : (blocks.find((candidate) => candidate.marked) ??
        blocks.find((candidate) => languages.includes(candidate.language)));
  if (block === undefined) {
    throw new Error(
      options.name !== undefined
        ? `${toPath(readme)} has no code block after ${namedMarker(options.name)}`
        : `${toPath(readme)} has no ${languages.join('/')} code block to run`,
    );
  }
  const { language, code, line, marked } = block;
  return { language, code, line, marked, expectedOutput: expectedOutput(code) };
}

/**
 * What the example says it prints: the runs of `// ` comment lines that follow a line calling
 * `console.log`, joined. Undefined when the example shows no output.
 */
export function expectedOutput(code) {
  const lines = code.split('\n');
  const output = [];
  let inOutput = false;
  for (const line of lines) {
    const comment = /^\s*\/\/ ?(.*)$/.exec(line);
    if (inOutput && comment) {
      output.push(comment[1]);
      continue;
    }
    inOutput = line.includes('console.log(');
  }
  return output.length === 0 ? undefined : `${output.join('\n')}\n`;
}

/** Splits a shell command line into words: plain, '...' and "..." (with \" and \\). */
export function shellWords(line) {
  const words = [];
  const pattern = /'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (const match of line.matchAll(pattern)) {
    words.push(match[1] ?? match[2]?.replace(/\\(["\\$`])/g, '$1') ?? match[3]);
  }
  return words;
}

/**
 * A README's shell session (a CLI's main example): each `{command} ...` line with the `# ` lines
 * below it, which are what it prints. `npm ...` lines (the install step) and blank lines are
 * skipped; any other line is an error, since a test could not run it.
 */
export function shellTranscript(code, command) {
  const steps = [];
  for (const line of code.split('\n')) {
    if (line.startsWith(`${command} `) || line === command) {
      steps.push({ args: shellWords(line).slice(1), expected: '' });
    } else if (line.startsWith('#') && steps.length > 0) {
      steps.at(-1).expected += `${line.replace(/^# ?/, '')}\n`;
    } else if (line.trim() !== '' && !line.startsWith('npm ')) {
      throw new Error(`the README example has a line that cannot be run: ${line}`);
    }
  }
  return steps;
}

/** The environment of a user's shell: this one's, without what test runners and CI add. */
function userEnv(extra) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('VITEST') || key.startsWith('ANTHROPIC_') || key === 'NODE_OPTIONS') continue;
    if (key === 'TEST' || key === 'NODE_ENV') continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

/**
 * Runs the README's main example with `node` and resolves to its exit code and output.
 *
 * - `readme`: the README file; `packageDir`: the package whose dependencies the example may import
 *   (its `dist/` must be built).
 * - `env`: variables for the example (a server URL, `ANTHROPIC_BASE_URL`...), on top of the user's
 *   environment. Test runner variables and any `ANTHROPIC_*` of the caller are left out.
 * - `name`: run the example marked `<!-- readme-example: {name} -->` instead of the main one.
 * - `timeoutMs`: the run is killed after it. @default 60000
 *
 * The example's working directory is a fresh folder inside the package; `inspect(folder)` runs
 * before the folder is removed, for checks on what the example wrote.
 */
export async function runReadmeExample(options) {
  const packageDir = toPath(options.packageDir);
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  if (!existsSync(join(packageDir, 'dist'))) {
    throw new Error(`${manifest.name} is not built (no dist/): run pnpm build first`);
  }
  const example = readmeExample(options.readme, { name: options.name });
  const { outputText } = ts.transpileModule(example.code, {
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: false,
    },
    reportDiagnostics: false,
  });
  const folder = await mkdtemp(join(packageDir, '.readme-run-'));
  try {
    const file = join(folder, 'example.mjs');
    await writeFile(file, outputText);
    const result = await run(file, folder, userEnv(options.env ?? {}), options.timeoutMs ?? 60_000);
    if (options.inspect) await options.inspect(folder);
    return { ...result, example };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

function run(file, cwd, env, timeoutMs) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ exitCode: code, signal, stdout, stderr });
    });
  });
}
