// What a backend (backend.ts) holds for all of its namespaces, seen as an interface: the bucket
// with the server's probed behaviour, this process's identity on leases, the files it has seen and
// the receipts of its change calls. A leaf of its own: the parts a namespace's state is made of
// (its lease queue, its totals, the lease itself) take it without reaching back to the backend
// that builds that state.
import type { Receipts } from '@memdir/core/driver';
import type { Bucket } from './bucket.js';
import type { Call } from './call.js';
import type { KeySpace } from './keys.js';
import type { KnownFiles } from './known.js';
import type { ServerBehaviour } from './objects.js';

/** What every namespace of one client, bucket and prefix shares in this process. */
export interface Shared {
  readonly bucket: Bucket;
  readonly prefix: string;
  readonly leaseTtlMs: number;
  /** Identifies this process's leases, so it recognises its own after a lost reply. */
  readonly owner: string;
  /**
   * Leases this process gave up in the middle of a change (its deadline passed): it may take them
   * over without waiting for them to expire, once its requests in flight have had time to land.
   */
  readonly abandoned: Map<string, { etag: string; at: number }>;
  readonly known: KnownFiles;
  /** The outcomes of this process's change calls, by operation id (`capabilities.replaySafe`). */
  readonly receipts: Receipts;
  /** The server's conditional-write behaviour, probed once per client and bucket. */
  behaviour(call: Call): Promise<ServerBehaviour>;
}

/** One namespace, seen only through what its backend shares (no namespace state). */
export interface SharedSpace {
  readonly backend: Shared;
  readonly keys: KeySpace;
}
