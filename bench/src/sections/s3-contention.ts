// The S3 store under contention (issue 17): several processes changing the structure of one
// namespace at once, which the namespace's lease serialises; and (issue 34) 4 processes x 250
// concurrent inserts into one file with history on and off, and 4 processes racing to fill a
// quota with new files. Each process is a real one (s3-worker.ts), started and warmed before a
// common "go".
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { S3ClientConfig } from '@aws-sdk/client-s3';
import type { WorkerInput, WorkerOutcome } from './s3-worker.js';

const WORKER = fileURLToPath(new URL('./s3-worker.js', import.meta.url));
const PROCESSES = 4;

/** Starts one worker per input, waits until all are ready, lets them go together, collects. */
async function runWorkers(inputs: readonly WorkerInput[]): Promise<WorkerOutcome[][]> {
  const children = inputs.map((input) => {
    const child = spawn(process.execPath, [WORKER, JSON.stringify(input)], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    });
    let output = '';
    let errors = '';
    child.stderr.on('data', (chunk) => {
      errors += chunk;
    });
    const ready = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.startsWith('ready\n')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`s3 worker exited (${code}): ${errors}`)));
    });
    const done = new Promise<WorkerOutcome[]>((resolve, reject) => {
      child.on('exit', (code) => {
        if (code !== 0) reject(new Error(`s3 worker exited (${code}): ${errors}`));
        else resolve(JSON.parse(output.slice('ready\n'.length)) as WorkerOutcome[]);
      });
    });
    done.catch(() => {});
    return { child, ready, done };
  });
  await Promise.all(children.map((worker) => worker.ready));
  for (const { child } of children) child.stdin.end('go\n');
  return Promise.all(children.map((worker) => worker.done));
}

const create = (path: string, file_text: string) => ({ command: 'create', path, file_text });

/** Counts of each outcome, `ok` first. */
function tally(outcomes: readonly WorkerOutcome[]): string {
  const counts = new Map<string, number>([['ok', 0]]);
  for (const { outcome } of outcomes) counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
  return [...counts].map(([outcome, count]) => `${count} ${outcome}`).join(', ');
}

function span(outcomes: readonly WorkerOutcome[]): number {
  return Math.max(...outcomes.map((o) => o.end)) - Math.min(...outcomes.map((o) => o.start));
}

/** The section's contention table, measured on `prefix` (one namespace per measure). */
export async function contention(
  clientConfig: S3ClientConfig,
  store: { bucket: string; prefix: string },
  log: (line: string) => void,
): Promise<string[]> {
  const lines = [
    '',
    `Contention: ${PROCESSES} processes changing the structure of one namespace at once (real processes, warmed, started together).`,
    '',
    '| measure | result | goal | verdict |',
    '|---|---|---|---|',
  ];
  const input = (
    namespace: string,
    commands: unknown[],
    concurrency: number,
    extra: object = {},
  ): WorkerInput => ({
    clientConfig,
    store: { ...store, namespace, ...extra },
    commands,
    concurrency,
  });

  log(`[s3] ${PROCESSES} processes x 25 racing creates of the same 25 new files`);
  const paths = Array.from({ length: 25 }, (_, index) => `/memories/race/f${index}.md`);
  const race = await runWorkers(
    Array.from({ length: PROCESSES }, (_, who) =>
      input(
        'race',
        paths.map((path) => create(path, `${who}`)),
        25,
        { overwrite: false },
      ),
    ),
  );
  const all = race.flat();
  const winners = paths.map(
    (_, index) => race.filter((outcomes) => outcomes[index]!.outcome === 'ok').length,
  );
  const resolved = all.every((o) => o.outcome === 'ok' || o.outcome === 'ALREADY_EXISTS');
  const slowest = Math.max(...all.map((o) => o.end - o.start));
  const raceOk = resolved && winners.every((count) => count === 1) && slowest <= 5_000;
  lines.push(
    `| ${PROCESSES} x 25 racing creates of 25 new files (overwrite: false) | ${tally(all)}; one winner per path: ${winners.every((count) => count === 1)}; slowest ${slowest} ms, all in ${span(all)} ms | all resolve within the 5 s deadline, one ok per path | ${raceOk ? 'PASS' : 'MISSED'} |`,
  );

  for (const [label, concurrency, count, extra] of [
    ['new files, 8 at a time per process', 8, 100, {}],
    ['new files, one at a time per process', 1, 25, {}],
    ['new files, 8 at a time per process, with a quota', 8, 100, { quota: { maxBytes: 1e9, maxFiles: 1e6 } }],
  ] as const) {
    log(`[s3] ${PROCESSES} processes x ${count} ${label}`);
    const namespace = `rate-${concurrency}-${'quota' in extra ? 'q' : 'n'}`;
    const outcomes = (
      await runWorkers(
        Array.from({ length: PROCESSES }, (_, who) =>
          input(
            namespace,
            Array.from({ length: count }, (_, index) => create(`/memories/p${who}/f${index}.md`, 'new')),
            concurrency,
            extra,
          ),
        ),
      )
    ).flat();
    const rate = (outcomes.filter((o) => o.outcome === 'ok').length / span(outcomes)) * 1000;
    const goal = concurrency === 8 && !('quota' in extra);
    lines.push(
      `| ${PROCESSES} x ${count} ${label} | ${rate.toFixed(1)} creates/s (${tally(outcomes)}) | ${goal ? '>= 40 creates/s' : 'reported'} | ${goal ? (rate >= 40 ? 'PASS' : 'MISSED') : '-'} |`,
    );
  }
  lines.push(...(await editsAndQuota(input, log)));
  return lines;
}

const insert = (who: string, index: number) => ({
  command: 'insert',
  path: '/memories/log.md',
  insert_line: 1,
  insert_text: `${who}-${index}`,
});

/**
 * Issue 34: 4 processes x 250 concurrent inserts into one file (with history: one version object
 * each, written before its commit), and 4 processes racing to fill a quota with new files, all
 * with the default options: `timeoutMs` 5 s for a server that shows no progress, `queueTimeoutMs`
 * 60 s for a command waiting its turn behind writers that keep finishing.
 */
async function editsAndQuota(
  input: (namespace: string, commands: unknown[], concurrency: number, extra?: object) => WorkerInput,
  log: (line: string) => void,
): Promise<string[]> {
  const lines: string[] = [];
  const who = Array.from({ length: PROCESSES }, (_, index) => String.fromCharCode(97 + index));
  for (const history of [true, false]) {
    // History is on by default; `history: true` is no option (false, or its retention).
    const options = history ? {} : { history: false };
    log(
      `[s3] ${PROCESSES} processes x 250 concurrent inserts into one file, history ${history ? 'on' : 'off'}`,
    );
    const namespace = `inserts-${history ? 'h' : 'n'}`;
    const seedInput = input(namespace, [create('/memories/log.md', '# log')], 1, options);
    await runWorkers([seedInput]);
    const outcomes = (
      await runWorkers(
        who.map((name) =>
          input(
            namespace,
            Array.from({ length: 250 }, (_, index) => insert(name, index)),
            250,
            options,
          ),
        ),
      )
    ).flat();
    const confirmed = outcomes.filter((o) => o.outcome === 'ok').length;
    const slowest = Math.max(...outcomes.map((o) => o.end - o.start));
    lines.push(
      `| ${PROCESSES} x 250 concurrent inserts into one file, history ${history ? 'on (default)' : 'off'} | ${tally(outcomes)}; slowest ${slowest} ms, all in ${span(outcomes)} ms | all 1,000 confirmed with the default options (each waits its turn, up to queueTimeoutMs) | ${confirmed === 1_000 ? 'PASS' : 'MISSED'} |`,
    );
  }
  log(`[s3] ${PROCESSES} processes x 25 new files racing to fill a quota of 30 files`);
  const quota = { maxBytes: 1e6, maxFiles: 30 };
  const race = (
    await runWorkers(
      who.map((name) =>
        input(
          'quota-race',
          Array.from({ length: 25 }, (_, index) =>
            create(`/memories/${name}/f${index}.md`, `${name}${index}`),
          ),
          25,
          { quota },
        ),
      ),
    )
  ).flat();
  const made = race.filter((o) => o.outcome === 'ok').length;
  const answered = race.every((o) => o.outcome === 'ok' || o.outcome === 'QUOTA_EXCEEDED');
  lines.push(
    `| ${PROCESSES} x 25 new files racing to fill a quota of 30 files (history on) | ${tally(race)}; slowest ${Math.max(...race.map((o) => o.end - o.start))} ms | only ok and QUOTA_EXCEEDED, 30 made, with the default options | ${answered && made === 30 ? 'PASS' : 'MISSED'} |`,
  );
  return lines;
}
