// The scripted session of `memdir demo` (and of examples/quickstart, which imports it): the tool
// inputs Claude sends, in order, while it works on a task (refactoring the retry logic of a checkout
// service) across one conversation, each with a caption saying what Claude is doing and why; and
// `playDemoSession`, which runs them through a store as an integration would. The inputs are exactly
// what arrives in a `tool_use` block of the `memory` tool (`memory_20250818`), run through
// `store.execute()`, the entry point for untrusted tool input.
import { isMemoryToolError, type MemoryStore } from '@memdir/core';

/** One tool call of the session. */
export interface DemoStep {
  /** What Claude is doing, shown above the call. */
  caption: string;
  /** The tool input, as Claude sends it. */
  input: Record<string, unknown>;
}

const PROGRESS = '/memories/progress/checkout-retry.md';
const PREFERENCES = '/memories/user-preferences.md';
const SCRATCH = '/memories/scratch/retry-timings.md';

const progressNote = [
  '# Task: make checkout retries safe',
  '',
  '## Status',
  '- [ ] Replace the fixed 500 ms delay with exponential backoff',
  '- [ ] Cap retries at 5 attempts',
  '- [ ] Add a test for the retry cap',
  '',
  '## Notes',
  '- Retry logic lives in src/checkout/retry.ts',
  '- Run the tests with `pnpm test --filter checkout`',
  '',
].join('\n');

const preferencesNote = [
  '# User preferences',
  '- Prefers small, reviewable commits',
  '- Uses pnpm, never npm',
  '- Wants tests next to the code they cover',
  '',
].join('\n');

const scratchNote = [
  'Timings measured before the change (temporary):',
  '- p50 retry delay: 500 ms',
  '- p99 checkout latency: 2.1 s',
  '',
].join('\n');

/** The whole session, in the order Claude sends the calls. */
export const DEMO_SESSION: readonly DemoStep[] = [
  {
    caption: 'Start of the task: Claude checks its memory before doing anything else',
    input: { command: 'view', path: '/memories' },
  },
  {
    caption: 'Nothing there yet: it records the task and its plan',
    input: { command: 'create', path: PROGRESS, file_text: progressNote },
  },
  {
    caption: 'It saves what it learned about the user',
    input: { command: 'create', path: PREFERENCES, file_text: preferencesNote },
  },
  {
    caption: 'It keeps a scratch note of measurements it will compare against later',
    input: { command: 'create', path: SCRATCH, file_text: scratchNote },
  },
  {
    caption: 'First item done: it ticks it off with str_replace',
    input: {
      command: 'str_replace',
      path: PROGRESS,
      old_str: '- [ ] Replace the fixed 500 ms delay with exponential backoff',
      new_str: '- [x] Replace the fixed 500 ms delay with exponential backoff (base 200 ms, factor 2)',
    },
  },
  {
    caption: 'It found a gotcha worth remembering: insert a line at the end of the Notes section',
    input: {
      command: 'insert',
      path: PROGRESS,
      insert_line: 10,
      insert_text: '- retry.test.ts uses real timers: switch it to vi.useFakeTimers() first\n',
    },
  },
  {
    caption: 'Later, it re-reads only the status section, with view_range',
    input: { command: 'view', path: PROGRESS, view_range: [3, 6] },
  },
  {
    caption: 'A mistake the model makes: an old_str that is not unique',
    input: { command: 'str_replace', path: PROGRESS, old_str: '- [ ]', new_str: '- [x]' },
  },
  {
    caption: 'It reads the error and retries with the whole line',
    input: {
      command: 'str_replace',
      path: PROGRESS,
      old_str: '- [ ] Cap retries at 5 attempts',
      new_str: '- [x] Cap retries at 5 attempts',
    },
  },
  {
    caption: 'Task finished: it moves the progress note into an archive folder',
    input: { command: 'rename', old_path: PROGRESS, new_path: '/memories/archive/checkout-retry.md' },
  },
  {
    caption: 'The scratch note is obsolete: it deletes it (its emptied folder goes too)',
    input: { command: 'delete', path: SCRATCH },
  },
  {
    caption: 'Before ending, it checks what it leaves for its next session',
    input: { command: 'view', path: '/memories' },
  },
];

/** One tool call of the session and what came back, as the model sees it. */
export interface DemoEntry {
  step: DemoStep;
  /**
   * The `tool_result` content Claude reads: the result text, or `"Error: " + message` for a
   * failed command (SPEC section 7).
   */
  content: string;
  /** The `is_error` flag of the `tool_result`. */
  isError: boolean;
}

/**
 * Runs each step through `store.execute()` in order: a `MemoryToolError` becomes an error result
 * the model reads, anything else (a store that stopped answering) is thrown.
 */
export async function playDemoSession(
  store: MemoryStore,
  steps: readonly DemoStep[] = DEMO_SESSION,
): Promise<DemoEntry[]> {
  const entries: DemoEntry[] = [];
  for (const step of steps) {
    try {
      entries.push({ step, content: await store.execute(step.input), isError: false });
    } catch (error) {
      if (!isMemoryToolError(error)) throw error;
      entries.push({ step, content: `Error: ${error.message}`, isError: true });
    }
  }
  return entries;
}

/** The paths the session writes a file at: a store where one exists is never played (demo-command.ts). */
export function demoWrittenPaths(steps: readonly DemoStep[] = DEMO_SESSION): string[] {
  const paths = steps.flatMap(({ input }) =>
    input['command'] === 'create'
      ? [input['path']]
      : input['command'] === 'rename'
        ? [input['new_path']]
        : [],
  );
  return [...new Set(paths.filter((path): path is string => typeof path === 'string'))];
}
