import type { MemoryCommand } from '@memdir/core';
import type { Contender, ContenderName } from './contenders.js';
import { largeTree, writeTree } from './tree.js';

/** One measured workload, run the same way on both tools. */
export interface Workload {
  readonly id: 'mixed' | 'listing';
  /** The row label of the table. */
  readonly title: string;
  /** The ratio memdir/reference the issue asks for. */
  readonly target: number;
  /** Readies a contender's folder; not timed. */
  prepare(contender: Contender): Promise<void>;
  /** One timed unit of work; resolves to the number of tool calls it made. */
  unit(contender: Contender): Promise<number>;
}

/** Runs a command that must succeed on both tools; a failure means the workload is wrong. */
async function expectSuccess(contender: Contender, command: MemoryCommand): Promise<string> {
  try {
    return await contender.run(command);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${contender.name} failed ${JSON.stringify(command)}: ${message}`, { cause: error });
  }
}

/** The files every mixed run starts from: a small project folder, and one resident file per folder
 * the loop writes in, so neither folder empties (memdir removes emptied folders, the reference
 * keeps them; a resident file keeps the two doing the same directory work). */
export const MIXED_SETUP: readonly MemoryCommand[] = [
  { command: 'create', path: '/memories/project/README.md', file_text: '# Project\nA checkout service.\n' },
  { command: 'create', path: '/memories/project/decisions.md', file_text: '- Use exponential backoff\n' },
  { command: 'create', path: '/memories/project/todo.md', file_text: '- [ ] Cap retries\n- [ ] Add tests\n' },
  { command: 'create', path: '/memories/project/people/alice.md', file_text: 'Reviews on Tuesdays.\n' },
  { command: 'create', path: '/memories/project/people/bob.md', file_text: 'Owns the payment client.\n' },
  { command: 'create', path: '/memories/notes/index.md', file_text: '# Notes\n' },
  { command: 'create', path: '/memories/archive/index.md', file_text: '# Archive\n' },
];

/** The small folder the mixed loop lists. */
export const MIXED_DIRECTORY = '/memories/project';

/**
 * Iteration `k` of the mixed loop: the six commands, seven calls, each valid for both tools (a new
 * file for `create`, which the reference refuses on an existing file; `new_str` always given; a
 * one-line `old_str`, which the reference matches line by line).
 */
export function mixedIteration(k: number): MemoryCommand[] {
  const note = `/memories/notes/note-${k}.md`;
  const archived = `/memories/archive/note-${k}.md`;
  const text = [
    `# Session note ${k}`,
    'status: draft',
    '',
    '## Findings',
    `- The retry loop in checkout ran ${k % 7} extra times`,
    '- Backoff must be capped at 5 s',
    '- The payment client times out after 30 s',
    '',
    '## Next',
    '- Add a test for the retry cap',
    '',
  ].join('\n');
  return [
    { command: 'create', path: note, file_text: text },
    { command: 'view', path: note },
    { command: 'str_replace', path: note, old_str: 'status: draft', new_str: 'status: reviewed' },
    { command: 'insert', path: note, insert_line: 3, insert_text: `Reviewed in iteration ${k}\n` },
    { command: 'view', path: MIXED_DIRECTORY },
    { command: 'rename', old_path: note, new_path: archived },
    { command: 'delete', path: archived },
  ];
}

/** The mixed workload: a loop of {@link mixedIteration}, one iteration per timed unit. */
export function mixedWorkload(): Workload {
  // Each contender numbers its own iterations, so both run the same sequence of paths.
  const next: Record<ContenderName, number> = { memdir: 0, reference: 0 };
  return {
    id: 'mixed',
    title: 'mixed: create, view file, view small dir, str_replace, insert, rename, delete',
    target: 1,
    async prepare(contender) {
      for (const command of MIXED_SETUP) await expectSuccess(contender, command);
    },
    async unit(contender) {
      const commands = mixedIteration(next[contender.name]++);
      for (const command of commands) await expectSuccess(contender, command);
      return commands.length;
    },
  };
}

/** The path the listing workload views. */
export const LISTING_PATH = '/memories';

/** The large-listing workload: `view /memories` over `dirs` x `filesPerDir` files at depth 2. */
export function listingWorkload(dirs = 100, filesPerDir = 100): Workload {
  const files = largeTree(dirs, filesPerDir);
  return {
    id: 'listing',
    title: `listing: view ${LISTING_PATH} of ${(dirs * filesPerDir).toLocaleString('en-US')} files in ${dirs} dirs`,
    target: 10,
    async prepare(contender) {
      await writeTree(`${contender.base}/memories`, files);
    },
    async unit(contender) {
      await expectSuccess(contender, { command: 'view', path: LISTING_PATH });
      return 1;
    },
  };
}
