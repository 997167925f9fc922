// The order of a store's calls: the memory calls of one assistant turn run one after another, in the
// order the model wrote them, even when an agent loop starts them all at once.
import type { MemoryStore } from '../tool.js';

// One queue per store, keyed weakly so a store that is dropped takes its queue with it. The value is the
// tail of the queue: a promise that settles (never rejects) once every task queued so far has finished.
const tails = new WeakMap<MemoryStore, Promise<void>>();

function ignore(): void {}

/**
 * Runs `task` after every task queued before it for the same `store` has finished, and resolves or
 * rejects as `task` does. Tasks for one store therefore run one at a time, first queued first run;
 * tasks for different stores run independently.
 *
 * Every integration of this package queues its calls here, so the memory calls of one assistant turn,
 * which agent loops start all at once, reach the store in the order the model wrote them: a `create`
 * followed by a `str_replace` of the same new file in one turn always finds the file. Use it when you
 * wire a store into another agent framework yourself. A task must not wait for another task queued on
 * the same store, or both wait forever.
 */
export function runInOrder<T>(store: MemoryStore, task: () => Promise<T>): Promise<T> {
  const previous = tails.get(store) ?? Promise.resolve();
  const result = previous.then(() => task());
  tails.set(store, result.then(ignore, ignore));
  return result;
}
