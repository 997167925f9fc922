// Judging a change against a namespace's quota (SPEC section 3), for drivers that keep the
// namespace's totals where the change's atomic step can read them.
import type { QuotaBreach } from '../errors.js';
import type { DriverQuota } from './contract.js';

/** What the namespace holds now, and what the change would do to it. */
export interface QuotaChange {
  /** The namespace's UTF-8 bytes now. */
  readonly bytes: number;
  /** The namespace's files now. */
  readonly files: number;
  /** Bytes the change adds (negative when it shrinks the total). */
  readonly addedBytes: number;
  /** True when the change creates a file. */
  readonly newFile: boolean;
}

/**
 * The quota `change` would pass, or null. A change that does not raise the total is never refused
 * for bytes (even where a lowered quota is already exceeded), nor one that adds no file for files;
 * where both would be passed, the bytes breach is the one reported.
 */
export function judgeQuota(quota: DriverQuota | undefined, change: QuotaChange): QuotaBreach | null {
  if (!quota) return null;
  const total = change.bytes + change.addedBytes;
  if (quota.maxBytes !== undefined && change.addedBytes > 0 && total > quota.maxBytes) {
    return { kind: 'bytes', total, max: quota.maxBytes };
  }
  if (quota.maxFiles !== undefined && change.newFile && change.files + 1 > quota.maxFiles) {
    return { kind: 'files', count: change.files, max: quota.maxFiles };
  }
  return null;
}
