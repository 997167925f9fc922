/** A README's main example. */
export interface ReadmeExample {
  /** The fence's language (`ts`, `js`, `sh`...). */
  language: string;
  /** The code, as written in the README. */
  code: string;
  /** The README line of the opening fence. */
  line: number;
  /** Whether `<!-- readme-example -->` marked it. */
  marked: boolean;
  /** What the example says it prints (its `// ` comments after `console.log` lines), if anything. */
  expectedOutput: string | undefined;
}

export interface ReadmeExampleOptions {
  /** The languages to look for when no block is marked. @default ts, typescript, js, javascript, mjs */
  languages?: readonly string[];
  /** The example after `<!-- readme-example: {name} -->` instead of the main one. */
  name?: string | undefined;
}

export function readmeExample(readme: string | URL, options?: ReadmeExampleOptions): ReadmeExample;

export function expectedOutput(code: string): string | undefined;

/** Splits a shell command line into words: plain, '...' and "..." (with \" and \\). */
export function shellWords(line: string): string[];

/** One command of a README's shell session, and what it prints (its `# ` lines). */
export interface ShellStep {
  args: string[];
  expected: string;
}

/** The `{command} ...` lines of a README's shell session, each with the `# ` lines below it. */
export function shellTranscript(code: string, command: string): ShellStep[];

export interface RunReadmeExampleOptions {
  /** The README file. */
  readme: string | URL;
  /** The package whose dependencies the example imports (built). */
  packageDir: string | URL;
  /** Variables for the example, on top of the user's environment. */
  env?: Record<string, string>;
  /** The example after `<!-- readme-example: {name} -->` instead of the main one. */
  name?: string | undefined;
  /** @default 60000 */
  timeoutMs?: number;
  /** Runs before the example's folder is removed. */
  inspect?: (folder: string) => void | Promise<void>;
}

export interface ReadmeExampleRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  example: ReadmeExample;
}

export function runReadmeExample(options: RunReadmeExampleOptions): Promise<ReadmeExampleRun>;
