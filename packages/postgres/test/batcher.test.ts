// The line that concurrent reads and writes of one namespace share (src/batcher.ts), on a kind of
// call made here: pure logic, no server. What it sends to PostgreSQL is read-batch.test.ts's and
// write-batch.test.ts's.
import type { DriverCallOptions, DriverCallStats } from '@memdir/core';
import { describe, expect, it } from 'vitest';
import type { Row } from '../src/backend.js';
import { Batcher, type BatchKind } from '../src/batcher.js';

interface Call {
  readonly id: number;
  readonly weight: number;
  readonly options?: DriverCallOptions;
}

/** A kind whose statements wait until released, recording what was sent alone and together. */
function recordingKind(overrides: Partial<BatchKind<Call, string>> = {}) {
  const sent: Array<{ ids: number[]; deadline?: number | undefined }> = [];
  const gates: Array<() => void> = [];
  const gate = () => new Promise<void>((resolve) => gates.push(resolve));
  const kind: BatchKind<Call, string> = {
    maxInFlight: 2,
    maxBatch: 3,
    maxWeight: 10,
    weight: (call) => call.weight,
    async single(call) {
      sent.push({ ids: [call.id] });
      await gate();
      return `alone ${call.id}`;
    },
    async many(calls, options) {
      sent.push({ ids: calls.map((call) => call.id), deadline: options.deadline });
      await gate();
      return calls.map((call): Row => [`together ${call.id}`]);
    },
    answer: (_call, row) => String(row?.[0]),
    ...overrides,
  };
  /** Lets every statement sent so far answer, then waits for the line to send the next ones. */
  const release = async () => {
    for (const open of gates.splice(0)) open();
    for (let turn = 0; turn < 5; turn++) await Promise.resolve();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { kind, sent, release };
}

const stats = (): DriverCallStats => ({ roundTrips: 0, requests: 0, retries: 0 });

describe('Batcher', () => {
  it('the first calls go alone; those that wait go together, within the count and the weight', async () => {
    const { kind, sent, release } = recordingKind();
    const line = new Batcher(kind);
    const weights = [1, 1, 1, 1, 1, 1, 1, 4, 4, 11, 1];
    const answers = weights.map((weight, id) => line.run({ id, weight }));
    await release();
    // Two alone (in flight), then batches of at most 3 calls and 10 of weight; 11 goes alone.
    expect(sent.map((call) => call.ids)).toEqual([[0], [1], [2, 3, 4], [5, 6, 7]]);
    for (let turn = 0; turn < 4; turn++) await release();
    expect(sent.map((call) => call.ids)).toEqual([[0], [1], [2, 3, 4], [5, 6, 7], [8], [9], [10]]);
    expect(await Promise.all(answers)).toEqual([
      'alone 0',
      'alone 1',
      'together 2',
      'together 3',
      'together 4',
      'together 5',
      'together 6',
      'together 7',
      'alone 8',
      'alone 9',
      'alone 10',
    ]);
  });

  it('a batch runs within its earliest deadline and counts one round trip for each of its calls', async () => {
    const { kind, sent, release } = recordingKind({ maxInFlight: 1 });
    const line = new Batcher(kind);
    const now = Date.now();
    const counted = [stats(), stats(), stats()];
    const answers = [
      line.run({ id: 0, weight: 1 }),
      line.run({ id: 1, weight: 1, options: { deadline: now + 9_000, stats: counted[0] } }),
      line.run({ id: 2, weight: 1, options: { deadline: now + 3_000, stats: counted[1] } }),
      line.run({ id: 3, weight: 1, options: { deadline: now + 7_000, stats: counted[2] } }),
    ];
    for (let turn = 0; turn < 3; turn++) await release();
    await Promise.all(answers);
    expect(sent[1]).toEqual({ ids: [1, 2, 3], deadline: now + 3_000 });
    expect(counted.map((one) => [one.roundTrips, one.requests])).toEqual([
      [1, 1],
      [1, 1],
      [1, 1],
    ]);
  });

  it('an answer that is an error fails its own call only', async () => {
    const { kind, release } = recordingKind({
      maxInFlight: 1,
      answer: (call, row) => {
        if (call.id === 2) throw new Error('no such file');
        return String(row?.[0]);
      },
    });
    const line = new Batcher(kind);
    const answers = [0, 1, 2, 3].map((id) =>
      line.run({ id, weight: 1 }).then(
        (answer) => answer,
        (error: Error) => `failed: ${error.message}`,
      ),
    );
    for (let turn = 0; turn < 3; turn++) await release();
    expect(await Promise.all(answers)).toEqual([
      'alone 0',
      'together 1',
      'failed: no such file',
      'together 3',
    ]);
  });

  it('after a failed batch, each call with time left runs again alone; one without gets the failure', async () => {
    const told: Array<[string, number]> = [];
    const broken = new Error('connection lost');
    const { kind, sent, release } = recordingKind({
      maxInFlight: 1,
      many: async (calls) => {
        sent.push({ ids: calls.map((call) => call.id) });
        throw broken;
      },
      failed: (error, calls) => told.push([(error as Error).message, calls]),
    });
    const line = new Batcher(kind);
    const answers = [
      line.run({ id: 0, weight: 1 }),
      line.run({ id: 1, weight: 1, options: { deadline: Date.now() + 5_000 } }),
      line.run({ id: 2, weight: 1, options: { deadline: Date.now() + 50 } }),
      line.run({ id: 3, weight: 1 }),
    ].map((answer) => answer.catch((error: unknown) => error));
    for (let turn = 0; turn < 4; turn++) await release();
    expect(await Promise.all(answers)).toEqual(['alone 0', 'alone 1', broken, 'alone 3']);
    expect(sent.map((call) => call.ids)).toEqual([[0], [1, 2, 3], [1], [3]]);
    expect(told).toEqual([['connection lost', 3]]);
  });
});
