// The fields a version object's JSON line holds (record.ts writes and reads them; state.ts keeps
// those this process has seen). A leaf of its own, so that the history state a namespace keeps does
// not reach back into the code that writes versions.
import type { DriverVersion } from '@memdir/core';

/** The fields a version object's JSON line holds (the id is its key's). */
export interface VersionHeader extends Omit<DriverVersion, 'id'> {
  readonly memdir: 'version';
  /** The `memdir-vers` chain of the file the change read (chain.ts): versions that happened. */
  readonly evidence: string;
  /** Written by `importVersions`: shown as it is. */
  readonly imported?: true | undefined;
}
