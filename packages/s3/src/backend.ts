// What every driver of one client, bucket and prefix shares, whatever its namespace: the bucket with
// the server's probed behaviour, this process's identity on leases, the versions it has seen, the
// receipts of its change calls, and per namespace the queue of changes waiting for the lease, the
// group commits of edits and the totals of quotas. Stores opened on one client share all of it (a
// WeakMap keyed by the client), so a handle for another tenant costs no probe and no request.
import { randomBytes } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { EditQueue, Receipts } from '@memdir/core/driver';
import { Bucket } from './bucket.js';
import type { Call } from './call.js';
import { commitEdits } from './edits.js';
import { HistoryState } from './history/state.js';
import type { KeySpace } from './keys.js';
import { KnownFiles } from './known.js';
import type { ServerBehaviour } from './objects.js';
import { probeServer } from './probe.js';
import { recover } from './recovery.js';
import { LeaseQueue } from './sessions.js';
import type { NamespaceState, Space, SpaceBackend } from './space.js';
import { Totals } from './totals.js';

/** Edits in one write: bounded so that all their operation ids fit in the object's metadata. */
const MAX_EDIT_GROUP = 40;

export class Backend implements SpaceBackend {
  /** Identifies this process's leases, so it recognises its own after a lost reply. */
  readonly owner = randomBytes(9).toString('base64url');
  /**
   * Leases this process gave up in the middle of a change (its deadline passed): it may take them
   * over without waiting for them to expire, once its requests in flight have had time to land.
   */
  readonly abandoned = new Map<string, { etag: string; at: number }>();
  readonly known = new KnownFiles();
  /**
   * The outcomes of the change calls of this process, by operation id (`capabilities.replaySafe`):
   * only this process sends its own ids, so a record here is enough for whole calls; a request sent
   * twice is recognised on the server instead (object metadata, the lease's owner).
   */
  readonly receipts = new Receipts();
  readonly #namespaces = new Map<string, NamespaceState>();

  constructor(
    readonly bucket: Bucket,
    readonly prefix: string,
    readonly leaseTtlMs: number,
  ) {}

  /**
   * The server's conditional-write behaviour, probed once per client and bucket before the first
   * change. A probe that fails (a timeout, a missing bucket) is tried again by the next change.
   */
  behaviour(call: Call): Promise<ServerBehaviour> {
    const { bucket } = this;
    if (!bucket.probing) {
      const probing = probeServer(bucket, this.prefix, call).then((behaviour) => {
        bucket.behaviour = behaviour;
        call.log.debug('S3 server probed', { ...behaviour });
        return behaviour;
      });
      bucket.probing = probing;
      probing.catch(() => {
        if (bucket.probing === probing) bucket.probing = undefined;
      });
    }
    return bucket.probing;
  }

  /** The shared state of the namespace whose keys are `keys`. */
  namespace(keys: KeySpace): NamespaceState {
    let state = this.#namespaces.get(keys.base);
    if (!state) {
      const space: Space = { backend: this, keys };
      const history = new HistoryState();
      state = {
        leases: new LeaseQueue(space, {
          recover: (lease, unfinished, call) => recover(space, lease, unfinished, call),
          // Another store held the lease: it may have written versions since this process's last.
          takenAfterWait: () => history.forgetNext(),
        }),
        edits: new EditQueue((path, batch) => commitEdits(space, path, batch), MAX_EDIT_GROUP),
        totals: new Totals(space),
        history,
        editRaces: new Map(),
      };
      this.#namespaces.set(keys.base, state);
    }
    return state;
  }

  /** Forgets what this process knew of the namespace's totals (admin.ts: it was dropped). */
  forget(keys: KeySpace): void {
    this.#namespaces.get(keys.base)?.totals.forget();
  }

  /** Resolves once no change of structure holds or waits for a lease of this backend. */
  async idle(): Promise<void> {
    await Promise.all([...this.#namespaces.values()].map((state) => state.leases.idle()));
  }
}

const buckets = new WeakMap<S3Client, Map<string, Bucket>>();
const backends = new WeakMap<S3Client, Map<string, Backend>>();

/** The entry of `map` at `key`, made by `make` the first time. */
function entry<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

/** The map `weak` keeps for `client`. */
function mapOf<V>(weak: WeakMap<S3Client, Map<string, V>>, client: S3Client): Map<string, V> {
  let map = weak.get(client);
  if (!map) {
    map = new Map();
    weak.set(client, map);
  }
  return map;
}

/**
 * The backend of `client`, `bucketName` and `prefix`: shared by every driver made on the same
 * client (the application's), or new for a client the driver made itself (`owned`).
 */
export function backendOf(
  client: S3Client,
  bucketName: string,
  prefix: string,
  leaseTtlMs: number,
  owned: boolean,
): Backend {
  if (owned) return new Backend(new Bucket(client, bucketName, true), prefix, leaseTtlMs);
  const bucket = entry(mapOf(buckets, client), bucketName, () => new Bucket(client, bucketName, false));
  const place = `${bucketName}\n${prefix}\n${leaseTtlMs}`;
  return entry(mapOf(backends, client), place, () => new Backend(bucket, prefix, leaseTtlMs));
}
