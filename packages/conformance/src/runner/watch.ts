// Loaded inside the vitest worker by the test file `memdir-conformance` generates. It wraps the
// store module's factories so that every call to a store, a driver or the module itself is known
// while it runs: a test that times out (or fails while a call hangs) then names the call it was
// waiting on, and a call pending for a while is announced before the test's timeout, so a driver
// whose `move()` never resolves is named within seconds instead of after minutes of silence.

/** The prefix of the console lines the runner turns into progress notices. */
export const WAIT_NOTICE = '[memdir-conformance:waiting] ';

/** When a pending call is first announced, and how often again. */
const FIRST_NOTICE_MS = 2_000;
const REPEAT_NOTICE_MS = 10_000;

interface PendingCall {
  label: () => string;
  started: number;
  /** The test that made the call, so a later test's failure does not blame it. */
  test: string | undefined;
  noticed: number;
}

const pending = new Set<PendingCall>();
let currentTest: string | undefined;

/**
 * The value of a call's argument, short: strings as JSON, objects and functions by kind. The suite
 * sends hostile inputs (throwing proxies, cycles), so this reads as little as it can and never throws.
 */
function describeArgument(value: unknown): string {
  try {
    return describeUnsafely(value);
  } catch {
    return '{…}';
  }
}

function describeUnsafely(value: unknown): string {
  if (typeof value === 'string') {
    return value.length > 50
      ? `${JSON.stringify(value.slice(0, 50)).slice(0, -1)}..."`
      : JSON.stringify(value);
  }
  if (typeof value === 'function') return 'fn';
  if (Array.isArray(value)) return '[…]';
  if (typeof value === 'object' && value !== null) {
    // A tool input reads best by its command and path.
    const { command, path, old_path: oldPath } = value as Record<string, unknown>;
    if (typeof command === 'string') {
      const where = typeof path === 'string' ? path : typeof oldPath === 'string' ? oldPath : undefined;
      return `{ command: ${describeUnsafely(command)}${where === undefined ? '' : `, path: ${describeUnsafely(where)}`} }`;
    }
    return '{…}';
  }
  return String(value);
}

/**
 * How a call reads in a report: `driver.move("a.md", "b.md")`. Made only when the call is
 * reported, so a call costs no formatting (and a hostile input is read only then, guarded).
 */
function callLabel(owner: string, method: string, args: readonly unknown[]): () => string {
  return () => {
    // Driver calls end with an options object (signal, op id): noise in a report.
    const shown = args.filter((arg, index) => !(index === args.length - 1 && isCallOptions(arg)));
    return `${owner}.${method}(${shown.map(describeArgument).join(', ')})`;
  };
}

function isCallOptions(value: unknown): boolean {
  try {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const keys = Object.keys(value);
    return (
      keys.length > 0 && keys.every((key) => ['signal', 'op', 'expect', 'limit', 'skipHidden'].includes(key))
    );
  } catch {
    return false;
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** Records `promise` as pending under `label` until it settles; returns it unchanged. */
function track<T>(label: () => string, promise: PromiseLike<T>): PromiseLike<T> {
  const call: PendingCall = { label, started: Date.now(), test: currentTest, noticed: 0 };
  pending.add(call);
  const done = () => pending.delete(call);
  promise.then(done, done);
  return promise;
}

/**
 * `target` with every method call recorded while its promise is pending. A driver's `namespace()`
 * returns a wrapped driver; a `list()` iterator's `next()` is recorded like a call. Methods run
 * on the original object (so private fields keep working), and `in` checks see its own methods.
 */
function watchObject<T extends object>(target: T, owner: string): T {
  return new Proxy(target, {
    get(object, key) {
      const value = Reflect.get(object, key, object) as unknown;
      if (typeof value !== 'function' || typeof key === 'symbol' || key === 'constructor') return value;
      return (...args: unknown[]) => {
        const label = callLabel(owner, key, args);
        const result = Reflect.apply(value, object, args) as unknown;
        if (key === 'namespace' && typeof result === 'object' && result !== null) {
          return watchObject(result, `${owner}.namespace(${describeArgument(args[0])})`);
        }
        if (isThenable(result)) return track(label, result);
        if (typeof result === 'object' && result !== null && Symbol.asyncIterator in result) {
          return watchIterable(result as AsyncIterable<unknown>, label);
        }
        return result;
      };
    },
  });
}

function watchIterable<T>(iterable: AsyncIterable<T>, label: () => string): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      const iterator = iterable[Symbol.asyncIterator]();
      return {
        next: () => track(() => `${label()} (next entry)`, iterator.next()) as Promise<IteratorResult<T>>,
        return: (value?: unknown) =>
          iterator.return
            ? (iterator.return(value) as Promise<IteratorResult<T>>)
            : Promise.resolve({ done: true as const, value: value as T }),
      };
    },
  };
}

/** Wraps a factory so that its call, and the store or driver it returns, are watched. */
function watchFactory(name: string, factory: unknown, product: string): unknown {
  if (typeof factory !== 'function') return factory;
  return function watched(this: unknown, ...args: unknown[]) {
    const label = callLabel('module', name, args);
    const result = Reflect.apply(factory, this, args) as unknown;
    const wrap = (made: unknown) =>
      typeof made === 'object' && made !== null ? watchObject(made, product) : made;
    if (isThenable(result)) return track(label, Promise.resolve(result).then(wrap));
    return wrap(result);
  };
}

const FACTORIES: Record<string, string> = {
  createStore: 'store',
  create: 'store',
  createDriver: 'driver',
  destroy: 'module',
};

/** The store module's exports with its factories watched (named exports and a default export). */
export function watchModule(moduleExports: Record<string, unknown>): Record<string, unknown> {
  const watched: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(moduleExports)) {
    watched[key] = key in FACTORIES ? watchFactory(key, value, FACTORIES[key]!) : value;
  }
  const fallback = moduleExports.default;
  if (typeof fallback === 'function') watched.default = watchFactory('default', fallback, 'store');
  else if (typeof fallback === 'object' && fallback !== null) {
    const object = fallback as Record<string, unknown>;
    const copy: Record<string, unknown> = { ...object };
    for (const key of Object.keys(FACTORIES)) {
      if (key in object) copy[key] = watchFactory(key, object[key], FACTORIES[key]!);
    }
    watched.default = copy;
  }
  return watched;
}

/** The calls the current test made that have not settled, oldest first, with how long they ran. */
export function pendingCalls(test: string | undefined = currentTest): string[] {
  const now = Date.now();
  return [...pending]
    .filter((call) => call.test === test)
    .sort((a, b) => a.started - b.started)
    .map((call) => `${call.label()}, pending for ${((now - call.started) / 1000).toFixed(1)}s`);
}

interface TestContextLike {
  task: { id: string; name: string; meta: Record<string, unknown> };
  onTestFailed(handler: () => void): void;
}

/**
 * Hooks the watch into every test of the file (call it at the top level, with the file's
 * `beforeEach`): each failure records the calls still pending in the test's `meta.pending`, and a
 * call pending for more than two seconds is announced on the console (which the runner shows).
 */
export function installWatch(hooks: {
  beforeEach(fn: (context: TestContextLike) => void): void;
  afterEach(fn: () => void): void;
}): void {
  hooks.beforeEach((context) => {
    currentTest = context.task.id;
    const test = currentTest;
    context.onTestFailed(() => {
      const calls = pendingCalls(test);
      if (calls.length > 0) context.task.meta.pending = calls;
    });
  });
  hooks.afterEach(() => {
    currentTest = undefined;
  });
  const timer = setInterval(() => {
    const now = Date.now();
    for (const call of pending) {
      const waited = now - call.started;
      const due = call.noticed === 0 ? FIRST_NOTICE_MS : call.noticed + REPEAT_NOTICE_MS;
      if (waited < due) continue;
      call.noticed = waited;
      console.log(`${WAIT_NOTICE}${call.label()} has not settled after ${Math.round(waited / 1000)}s`);
    }
  }, 500);
  timer.unref();
}
