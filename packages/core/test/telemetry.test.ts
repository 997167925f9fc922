// The `memdir:command` and `memdir:driver` tracing channels: what each command and driver call
// reports, and that no path or content is in it unless the application opts in.
import diagnostics from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { wrapDriver } from '../src/driver/index.js';
import {
  type CommandTrace,
  createInMemoryDriver,
  createMemoryStore,
  type DriverTrace,
  type MemoryDriver,
} from '../src/index.js';

interface Seen {
  commands: CommandTrace[];
  drivers: DriverTrace[];
  events: string[];
}

const unsubscribers: Array<() => void> = [];
afterEach(() => {
  for (const unsubscribe of unsubscribers.splice(0)) unsubscribe();
});

function listen(): Seen {
  const seen: Seen = { commands: [], drivers: [], events: [] };
  const command = diagnostics.tracingChannel('memdir:command');
  const driver = diagnostics.tracingChannel('memdir:driver');
  const commandHandlers = {
    start: () => seen.events.push('command start'),
    end: () => {},
    asyncStart: () => {},
    asyncEnd: (context: unknown) => {
      seen.events.push('command asyncEnd');
      seen.commands.push({ ...(context as CommandTrace) });
    },
    error: () => seen.events.push('command error'),
  };
  const driverHandlers = {
    start: () => seen.events.push('driver start'),
    end: () => {},
    asyncStart: () => {},
    asyncEnd: (context: unknown) => seen.drivers.push({ ...(context as DriverTrace) }),
    error: () => {},
  };
  command.subscribe(commandHandlers);
  driver.subscribe(driverHandlers);
  unsubscribers.push(
    () => command.unsubscribe(commandHandlers),
    () => driver.unsubscribe(driverHandlers),
  );
  return seen;
}

/** An in-memory driver that says it made one round trip per call. */
function counted(): MemoryDriver {
  const inner = createInMemoryDriver();
  const count = <T>(
    options: { stats?: { roundTrips: number; requests: number } } | undefined,
    work: Promise<T>,
  ) => {
    if (options?.stats) {
      options.stats.roundTrips += 1;
      options.stats.requests += 1;
    }
    return work;
  };
  return wrapDriver(inner, {
    describe: (path, options) => count(options, inner.describe!(path, options)),
    write: (path, content, options) => count(options, inner.write(path, content, options)),
    edit: (path, edit, options) => count(options, inner.edit!(path, edit, options)),
  });
}

describe('telemetry channels', () => {
  it('a command reports its name, store, outcome, bytes, driver calls and round trips; each driver call its method', async () => {
    const store = createMemoryStore(counted());
    const seen = listen();
    await store.create({ command: 'create', path: '/memories/secret-name.md', file_text: 'private content' });
    await store.view({ command: 'view', path: '/memories/secret-name.md' });
    await store
      .execute(
        { command: 'str_replace', path: '/memories/secret-name.md', old_str: 'nope', new_str: 'x' },
        { toolUseId: 'toolu_1' },
      )
      .catch(() => {});
    expect(seen.commands.map(({ durationMs, ...rest }) => ({ ...rest, timed: durationMs >= 0 }))).toEqual([
      {
        command: 'create',
        store: 'memory',
        storeId: 'memory',
        toolUseId: undefined,
        path: undefined,
        outcome: 'ok',
        reason: undefined,
        bytesRead: 0,
        bytesWritten: 15,
        driverCalls: 1,
        roundTrips: 1,
        requests: 1,
        retries: 0,
        conflicts: 0,
        timed: true,
      },
      expect.objectContaining({
        command: 'view',
        outcome: 'ok',
        bytesRead: 15,
        driverCalls: 1,
        roundTrips: 1,
      }),
      expect.objectContaining({
        command: 'str_replace',
        outcome: 'NO_MATCH',
        toolUseId: 'toolu_1',
        driverCalls: 1,
      }),
    ]);
    expect(seen.drivers.map((call) => [call.method, call.command, call.outcome, call.roundTrips])).toEqual([
      ['write', 'create', 'ok', 1],
      ['describe', 'view', 'ok', 1],
      ['edit', 'str_replace', 'ok', 1],
    ]);
    // Each driver call names its command's trace, for a span to hang under.
    expect(seen.drivers.map((call) => call.parent.command)).toEqual(['create', 'view', 'str_replace']);
    // Failures are told by `outcome`: the channel's own error event (which would carry the message,
    // and with it a path) is never used.
    expect(seen.events.filter((event) => event === 'command error')).toEqual([]);
    // Nothing of the path or the content anywhere.
    const all = JSON.stringify([seen.commands, seen.drivers.map(({ parent: _parent, ...call }) => call)]);
    expect(all).not.toContain('secret');
    expect(all).not.toContain('private');
  });

  it('BACKEND failures report their reason; an unreadable command is "unknown"', async () => {
    const inner = createInMemoryDriver();
    const store = createMemoryStore(wrapDriver(inner, { describe: () => new Promise<never>(() => {}) }), {
      timeoutMs: 50,
    });
    const seen = listen();
    await store.view({ command: 'view', path: '/memories' }).catch(() => {});
    await store.execute({ command: 'nope' }).catch(() => {});
    expect(seen.commands.map((trace) => [trace.command, trace.outcome, trace.reason])).toEqual([
      ['view', 'BACKEND', 'timeout'],
      ['unknown', 'INVALID_INPUT', undefined],
    ]);
    expect(seen.drivers.map((call) => [call.method, call.outcome, call.reason])).toEqual([
      ['describe', 'BACKEND', 'timeout'],
    ]);
  });

  it('paths appear only when the application opts in: hashed with its key, or plain', async () => {
    const hashed = createMemoryStore(createInMemoryDriver(), { telemetry: { paths: 'hash', key: 'k' } });
    const plain = createMemoryStore(createInMemoryDriver(), { telemetry: { paths: 'plain' } });
    const seen = listen();
    await hashed.view({ command: 'view', path: '/memories' });
    await plain.view({ command: 'view', path: '/memories' });
    expect(seen.commands.map((trace) => trace.path)).toEqual([
      // HMAC-SHA-256 of "/memories" with the key "k".
      '206f52bd2796e88d28105793f8285d87465da6c9968db901c851ccb666d5f69d',
      '/memories',
    ]);
    expect(() => createMemoryStore(createInMemoryDriver(), { telemetry: { paths: 'hash' } })).toThrow(
      "Invalid @memdir/core option telemetry.key: paths: 'hash' needs a key",
    );
  });

  it('nobody listening: no trace is made', async () => {
    let made = 0;
    const inner = createInMemoryDriver();
    const store = createMemoryStore(
      wrapDriver(inner, {
        describe: (path, options) => {
          if (options.stats) made++;
          return inner.describe!(path, options);
        },
      }),
    );
    await store.view({ command: 'view', path: '/memories' });
    expect(made).toBe(0);
  });
});
