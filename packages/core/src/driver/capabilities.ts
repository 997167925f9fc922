// What a driver can do, read by the engine, the store factory and the conformance suite: a leaf of
// its own, so the tool's `MemoryStore` can name it without importing the whole driver contract.

/** What a driver can do. The engine and the conformance suite read it from the driver itself. */
export interface DriverCapabilities {
  /** True when moving or deleting a directory is one atomic step (false on S3, SPEC section 6). */
  readonly atomicRename: boolean;
  /**
   * The longest normalised memory path (`/memories/...`, UTF-8 bytes) this driver can hold, when
   * below the protocol's 1024 (S3 keys are at most 1024 bytes, prefix included). The engine refuses
   * longer paths with `INVALID_PATH`, giving this limit.
   * @default 1024
   */
  readonly maxPathBytes?: number | undefined;
  /**
   * The largest file content, in UTF-8 bytes, the backend can hold. `createMemoryStore` refuses a
   * `maxFileBytes` option above it.
   * @default no limit of its own
   */
  readonly maxFileBytes?: number | undefined;
  /**
   * True when the driver records operation ids ({@link DriverChangeOptions.op}): a change call
   * that arrives again with the id of a call that already changed something returns that first
   * outcome and applies nothing again (SPEC section 7). A driver whose client may resend a request
   * (after a reconnect, or an SDK retry) must do this and say so; the conformance suite then checks
   * replays. A driver whose calls can never arrive twice need not record anything.
   * @default false
   */
  readonly replaySafe?: boolean | undefined;
  /**
   * True when the driver judges {@link DriverChangeOptions.quota} in the same atomic step as each
   * change (SPEC section 3). A store with a `quota` option needs it.
   * @default false
   */
  readonly quotas?: boolean | undefined;
  /**
   * True when the driver records a version of every change it makes with
   * {@link DriverChangeOptions.record}, in the same atomic step, and has the history methods
   * (`listVersions`, `readVersion`, `restoreVersion`, `redactVersion`, `treeAt`; `importVersions`
   * is optional). docs/history.md is the model these follow.
   * @default false
   */
  readonly history?: boolean | undefined;
  /**
   * True when the driver has the admin methods (`listNamespaces`, `usage`, `dropNamespace`,
   * `sweep`) and honours {@link DriverCallOptions.touch}.
   * @default false
   */
  readonly admin?: boolean | undefined;
  /**
   * True when `list` gives files their {@link DriverEntry.contentMd5}: a copy into the store then
   * checks what it wrote from one listing instead of reading every file back.
   * @default false
   */
  readonly listsContentMd5?: boolean | undefined;
  /**
   * True when the driver keeps a record of every file (its id, SHA-256, size, times and current
   * version: {@link DriverRecord}) in the same atomic step as each change, with history on or off,
   * and has `readRecord`, `locate` and `listRecords`; `write` then returns the record it made.
   * docs/identity.md is the model. Without it the engine derives records from `read`, `list` and
   * the history (`@memdir/core/driver`'s `recordsOf`), at more cost and with weaker ids.
   * @default false
   */
  readonly records?: boolean | undefined;
  /**
   * True when the driver has `updateById`: new content, a new path or both in one atomic step under
   * an expected SHA-256, as one version. Without it the engine moves, then writes (two steps).
   * @default false
   */
  readonly updateById?: boolean | undefined;
  /**
   * True when `remove` honours {@link DriverRemoveOptions.expect} in its atomic step. Without it
   * the engine reads the record, checks, then removes.
   * @default false
   */
  readonly removeExpect?: boolean | undefined;
}
