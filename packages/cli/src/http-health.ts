// `GET /readyz` of `memdir serve --http`: whether the store answers. No token is needed, and the
// answer says nothing else; the cause of a failure goes to the server's log.
import { isMemoryToolError, type MemoryStore } from '@memdir/core';

/** How long one answer is reused: a load balancer polling /readyz does not load the store. */
const HEALTH_CACHE_MS = 1000;

/**
 * A check of `store` that at most one probe runs at a time, reused for a second: a `view` of a path
 * that is not there answers `NOT_FOUND` from a store that works; only `BACKEND` is unhealthy.
 * Changes of state are logged.
 */
export function healthCheck(store: MemoryStore, log: (line: string) => void): () => Promise<boolean> {
  let health: { at: number; settled: boolean; result: Promise<boolean> } | undefined;
  let lastHealthy = true;
  return () => {
    const now = Date.now();
    if (health && (!health.settled || now - health.at < HEALTH_CACHE_MS)) return health.result;
    const probe = { at: now, settled: false, result: Promise.resolve(true) };
    probe.result = store.execute({ command: 'view', path: '/memories/.memdir-healthz' }).then(
      () => true,
      (error: unknown) => {
        if (isMemoryToolError(error) && error.code !== 'BACKEND') return true;
        if (lastHealthy) log(`the store is unavailable: ${(error as Error).message}`);
        return false;
      },
    );
    void probe.result.then((ok) => {
      probe.settled = true;
      if (ok && !lastHealthy) log('the store answers again');
      lastHealthy = ok;
    });
    health = probe;
    return probe.result;
  };
}
