// What the engine itself costs per command, on the in-memory store (no I/O at all): the goal of
// issue 17 is a `view` of a file in at most 5 µs (p50), and of issue 20 that the telemetry channels
// cost nothing (at most 1 µs per command) while nobody subscribes.
import diagnostics from 'node:diagnostics_channel';
import { createInMemoryStore, type MemoryCommand } from '@memdir/core';
import { median } from '../stats.js';
import type { BenchSection } from './section.js';

const FILE = 'line of a small memory file\n'.repeat(10);

const CASES: ReadonlyArray<{ label: string; command: () => MemoryCommand; goal?: number }> = [
  {
    label: 'view a file (10 lines)',
    command: () => ({ command: 'view', path: '/memories/notes/a.md' }),
    goal: 5,
  },
  { label: 'view a folder (6 files)', command: () => ({ command: 'view', path: '/memories/notes' }) },
  {
    label: 'create over a file',
    command: () => ({ command: 'create', path: '/memories/notes/b.md', file_text: FILE }),
  },
  {
    label: 'str_replace',
    command: () => ({
      command: 'str_replace',
      path: '/memories/notes/c.md',
      old_str: 'line 3',
      new_str: 'line 3',
    }),
  },
  {
    label: 'insert (then trimmed back)',
    command: () => ({ command: 'insert', path: '/memories/notes/d.md', insert_line: 0, insert_text: 'x' }),
  },
];

/** Median µs per command of `rounds` batches of `batch` commands each (after a warm-up). */
async function perCommand(run: () => Promise<unknown>, rounds: number, batch: number): Promise<number> {
  for (let index = 0; index < batch * 20; index++) await run();
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const started = process.hrtime.bigint();
    for (let index = 0; index < batch; index++) await run();
    samples.push(Number(process.hrtime.bigint() - started) / batch / 1000);
  }
  return median(samples);
}

async function seededStore() {
  const store = createInMemoryStore();
  for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) {
    const text = name === 'c' ? Array.from({ length: 10 }, (_, line) => `line ${line}`).join('\n') : FILE;
    await store.create({ command: 'create', path: `/memories/notes/${name}.md`, file_text: text });
  }
  return store;
}

export function engineSection(): BenchSection {
  return {
    id: 'engine',
    summary:
      'what the engine costs per command on the in-memory store, with and without a telemetry subscriber',
    async run(context) {
      const rounds = context.quick ? 40 : 200;
      const batch = 200;
      context.log(
        `[engine] ${CASES.length} commands x ${rounds} rounds of ${batch}, without and with a subscriber`,
      );
      const store = await seededStore();
      const noop = { start() {}, end() {}, asyncStart() {}, asyncEnd() {}, error() {} };
      const commandChannel = diagnostics.tracingChannel('memdir:command');
      const driverChannel = diagnostics.tracingChannel('memdir:driver');
      const rows: string[] = [];
      for (const testCase of CASES) {
        const command = testCase.command();
        const run =
          command.command === 'insert'
            ? async () => {
                await store.execute(command);
                await store.execute({
                  command: 'str_replace',
                  path: command.path,
                  old_str: 'x\n',
                  new_str: '',
                });
              }
            : () => store.execute(command);
        const factor = command.command === 'insert' ? 2 : 1;
        const off = (await perCommand(run, rounds, batch)) / factor;
        commandChannel.subscribe(noop);
        driverChannel.subscribe(noop);
        const on = (await perCommand(run, rounds, batch)) / factor;
        commandChannel.unsubscribe(noop);
        driverChannel.unsubscribe(noop);
        const goal = testCase.goal === undefined ? '' : `<= ${testCase.goal} µs`;
        const result = testCase.goal === undefined ? '' : off <= testCase.goal ? 'PASS' : 'ABOVE';
        rows.push(`| ${testCase.label} | ${off.toFixed(2)} | ${on.toFixed(2)} | ${goal} | ${result} |`);
      }
      await store.close();
      // What the channels cost a command while nobody listens: the two `hasSubscribers` reads it makes.
      const checks = await perCommand(
        async () => {
          void commandChannel.hasSubscribers;
          void driverChannel.hasSubscribers;
        },
        rounds,
        batch,
      );
      return [
        '## Engine cost (in-memory store)',
        '',
        'Median µs per command over batches of one command repeated, in one process: the whole engine (input checks, path rules, the deadline, rendering) over a driver that does no I/O.',
        '',
        '| command | µs, no subscriber | µs, a subscriber on both channels | goal | result |',
        '|---|---:|---:|---:|---|',
        ...rows,
        '',
        `Telemetry with nobody subscribed costs a command two \`hasSubscribers\` reads and an awaited call: ${checks.toFixed(3)} µs per command (goal <= 1 µs): ${checks <= 1 ? 'PASS' : 'ABOVE'}.`,
      ].join('\n');
    },
  };
}
