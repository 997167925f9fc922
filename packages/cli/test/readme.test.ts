// The README's first example is a shell session: each `memdir ...` line, run with the built CLI in a
// fresh folder, must print exactly the `# ` lines below it (none: nothing). `npm ...` lines are the
// install step and are skipped.
import { describe, expect, it } from 'vitest';
import { readmeExample } from '../../../scripts/readme-example.mjs';
import { runCli, tempFolder } from './helpers.js';

interface Step {
  args: string[];
  expected: string;
}

/** Splits a shell command line into words: plain, '...' and "..." (with \" and \\). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  const pattern = /'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (const match of line.matchAll(pattern)) {
    words.push(match[1] ?? match[2]?.replace(/\\(["\\$`])/g, '$1') ?? match[3]!);
  }
  return words;
}

function transcript(code: string): Step[] {
  const steps: Step[] = [];
  for (const line of code.split('\n')) {
    if (line.startsWith('memdir ') || line === 'memdir') {
      steps.push({ args: shellWords(line).slice(1), expected: '' });
    } else if (line.startsWith('#') && steps.length > 0) {
      steps.at(-1)!.expected += `${line.replace(/^# ?/, '')}\n`;
    } else if (line.trim() !== '' && !line.startsWith('npm ')) {
      throw new Error(`the README example has a line this test cannot run: ${line}`);
    }
  }
  return steps;
}

describe('README example', () => {
  it('each memdir command prints what the README shows', async () => {
    const example = readmeExample(new URL('../README.md', import.meta.url), { languages: ['sh'] });
    const steps = transcript(example.code);
    expect(steps.length).toBeGreaterThanOrEqual(3);
    const folder = await tempFolder();
    try {
      for (const step of steps) {
        const result = await runCli(step.args, { cwd: folder.path });
        expect({ args: step.args, code: result.code, stderr: result.stderr, stdout: result.stdout }).toEqual({
          args: step.args,
          code: 0,
          stderr: '',
          stdout: step.expected,
        });
      }
    } finally {
      await folder.remove();
    }
  });
});
