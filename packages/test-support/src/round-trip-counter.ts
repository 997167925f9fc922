// The bench's meter: the fault proxy in `pass` mode, counting the round trips and bytes between a
// client and its server.
import { type FaultProxy, startFaultProxy, type TrafficStats } from './fault-proxy.js';
import type { Endpoint } from './net.js';

/** A pass-through proxy that counts round trips ("turns") and bytes, for the bench. */
export type RoundTripCounter = Pick<FaultProxy, 'host' | 'port' | 'url' | 'stats' | 'resetStats' | 'close'>;

/**
 * Starts a loopback proxy to `target` that forwards everything and counts what passes (see
 * `TrafficStats`): point the client at `counter.url`, call `resetStats()` once it is connected,
 * run the operation, read `stats().turns`.
 */
export async function startRoundTripCounter(target: string | Endpoint): Promise<RoundTripCounter> {
  const proxy = await startFaultProxy({ target });
  const { host, port, url } = proxy;
  return {
    host,
    port,
    url,
    stats: (): TrafficStats => proxy.stats(),
    resetStats: () => proxy.resetStats(),
    close: () => proxy.close(),
  };
}
