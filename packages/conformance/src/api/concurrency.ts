// The kit's `concurrency` group: updates of one memory under one precondition race, from one process
// and from four processes of their own (race-worker.ts): exactly one wins each round, the others are
// 409, and each winning update is exactly one version.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type Anthropic from '@anthropic-ai/sdk';
import { expect, it } from 'vitest';
import { type ApiKit, sha } from './target.js';

const WRITERS = 4;
const ROUNDS = 5;

export function concurrencyTests(kit: ApiKit): void {
  it('concurrency: of four updates under one precondition, exactly one wins, with one version', async () => {
    const store = await kit.createStore('race');
    const { memories, memoryVersions } = kit.admin().beta.memoryStores;
    const memory = await memories.create(store.id, { path: '/race.md', content: 'start' });
    let current = memory;
    for (let round = 0; round < 3; round++) {
      const results = await Promise.allSettled(
        Array.from({ length: WRITERS }, (_, writer) =>
          memories.update(memory.id, {
            memory_store_id: store.id,
            content: `round ${round} writer ${writer}`,
            precondition: { type: 'content_sha256', content_sha256: current.content_sha256 },
          }),
        ),
      );
      const won = results.filter((result) => result.status === 'fulfilled');
      expect(won).toHaveLength(1);
      for (const result of results) {
        if (result.status === 'rejected') expect((result.reason as { status?: number }).status).toBe(409);
      }
      current = (won[0] as PromiseFulfilledResult<typeof memory>).value;
    }
    const versions = await memoryVersions.list(store.id, { memory_id: memory.id });
    expect(versions.data.map((version) => version.operation)).toEqual([
      'modified',
      'modified',
      'modified',
      'created',
    ]);
    expect(versions.data[0]!.id).toBe(current.memory_version_id);
  });

  it('concurrency: four processes updating one memory by id under a precondition: one winner a round, the others 409', async () => {
    const store = await kit.createStore('race-processes');
    const { memories, memoryVersions } = kit.admin().beta.memoryStores;
    const memory = await memories.create(store.id, { path: '/race.md', content: 'start' });
    const writers = Array.from({ length: WRITERS }, () => startWriter(kit, store.id, memory.id));
    try {
      let current = sha('start');
      const winners: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const answers = await Promise.all(
          writers.map((writer, index) =>
            writer.send({ round, content: `round ${round} writer ${index}`, sha: current }),
          ),
        );
        const won = answers.filter((answer) => answer.status === 200);
        expect(won, JSON.stringify(answers)).toHaveLength(1);
        expect(answers.filter((answer) => answer.status === 409)).toHaveLength(WRITERS - 1);
        current = won[0]!.sha as string;
        winners.push(won[0]!.version as string);
        const stored = await memories.retrieve(memory.id, { memory_store_id: store.id });
        expect(stored.content_sha256).toBe(current);
      }
      const versions: Anthropic.Beta.MemoryStores.BetaManagedAgentsMemoryVersion[] = [];
      for await (const version of memoryVersions.list(store.id, { memory_id: memory.id }))
        versions.push(version);
      expect(versions.map((version) => version.operation)).toEqual([
        ...Array.from({ length: ROUNDS }, () => 'modified'),
        'created',
      ]);
      expect(versions.slice(0, ROUNDS).map((version) => version.id)).toEqual(winners.reverse());
    } finally {
      await Promise.all(writers.map((writer) => writer.stop()));
    }
  });
}

interface Writer {
  send(round: { round: number; content: string; sha: string }): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

function startWriter(kit: ApiKit, storeId: string, memoryId: string): Writer {
  const { baseUrl, token } = kit.connection();
  const child: ChildProcess = spawn(
    process.execPath,
    [fileURLToPath(new URL('./race-worker.js', import.meta.url))],
    {
      env: {
        PATH: process.env.PATH,
        MEMDIR_RACE_BASE_URL: baseUrl,
        MEMDIR_RACE_TOKEN: token,
        MEMDIR_RACE_STORE: storeId,
        MEMDIR_RACE_MEMORY: memoryId,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const lines: Interface = createInterface({ input: child.stdout! });
  const waiting: ((line: string) => void)[] = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    send(round) {
      return new Promise((resolve, reject) => {
        const gone = () => reject(new Error(`a race writer exited: ${stderr}`));
        child.once('exit', gone);
        waiting.push((line) => {
          child.off('exit', gone);
          resolve(JSON.parse(line) as Record<string, unknown>);
        });
        child.stdin!.write(`${JSON.stringify(round)}\n`);
      });
    },
    async stop() {
      child.stdin!.end();
      await exited;
    },
  };
}
