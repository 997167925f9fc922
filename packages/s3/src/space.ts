// One namespace of a backend as the driver's rooms work on it (`Space`, the first argument of
// nearly every function of this package), and the state its drivers share in this process
// (`NamespaceState`). The backend class that builds both is in backend.ts; this file only names
// their shape, so the rooms take a `Space` without importing the backend (which imports them).
import type { EditQueue } from '@memdir/core/driver';
import type { HistoryState } from './history/state.js';
import type { KeySpace } from './keys.js';
import type { LeaseQueue } from './sessions.js';
import type { Shared } from './shared.js';
import type { Totals } from './totals.js';

/** What a namespace's drivers share in this process. */
export interface NamespaceState {
  /** Changes of structure waiting for (or running under) the namespace's lease. */
  readonly leases: LeaseQueue;
  /** Edits of files, one group commit per file at a time. */
  readonly edits: EditQueue;
  readonly totals: Totals;
  /** The namespace's history as this process knows it (history/state.ts). */
  readonly history: HistoryState;
  /** When an edit group of each file (by key) last lost a race to another writer (edits.ts). */
  readonly editRaces: Map<string, number>;
}

/** A backend (backend.ts): what its namespaces share, and the state of each. */
export interface SpaceBackend extends Shared {
  /** The shared state of the namespace whose keys are `keys`. */
  namespace(keys: KeySpace): NamespaceState;
  /** Forgets what this process knew of the namespace's totals (admin.ts: it was dropped). */
  forget(keys: KeySpace): void;
}

/** One namespace of a backend, as a driver works on it. */
export interface Space {
  readonly backend: SpaceBackend;
  readonly keys: KeySpace;
}
