// The one rule every driver applies to versions brought in from elsewhere (`importVersions`: an
// archive, another store, a hosted store): they are hostile input. Their ids must be ids a history
// makes, ascending and low enough that the ids the target makes after them stay exact integers on
// every backend (an imported memver_9999999999999999 once made every later fs id NaN and rounded
// PostgreSQL's); their times must be times a memory could have been written; their actors and tool
// use ids must hold no control character that a terminal or a page would act on when an operator
// reads the history. One function, so that no two stores accept different archives.
import { MemoryToolError } from '../errors.js';
import { ACTOR_TYPES, CONTROL_CHARACTER as CONTROL, MAX_ID_CHARS } from '../store-options.js';
import type { DriverVersion } from './contract.js';
import { sequenceVersionId, versionSequence } from './history.js';

/**
 * The highest sequence an imported version id may carry (`memver_1000000000000000`): far below
 * 2^53, so a history that continues after an import counts exactly in JavaScript and in every
 * backend, for longer than any history will live.
 */
export const MAX_IMPORTED_SEQUENCE = 1_000_000_000_000_000;

/** The earliest time an imported version may carry: 2000-01-01 UTC (no memory tool is older). */
export const EARLIEST_IMPORTED_AT = Date.UTC(2000, 0, 1);

/** How far past the importer's clock an imported time may lie (another server's clock). */
const CLOCK_SKEW_MS = 86_400_000;

const CONTROL_ALL = new RegExp(CONTROL.source, 'g');

/** A value as an error message may show it: JSON, every control escaped, at most 80 characters. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text
    .slice(0, 80)
    .replace(CONTROL_ALL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function refuse(detail: string): MemoryToolError {
  return new MemoryToolError('INVALID_INPUT', `importVersions: ${detail}`);
}

function checkTime(id: string, field: string, at: unknown, latest: number): void {
  if (typeof at !== 'number' || !Number.isSafeInteger(at) || at < EARLIEST_IMPORTED_AT || at > latest) {
    throw refuse(
      `version ${id} has ${field} ${shown(at)}, outside 2000-01-01 to a day past now (milliseconds since the epoch)`,
    );
  }
}

function checkId(id: string, field: string, value: unknown): void {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID_CHARS || CONTROL.test(value)) {
    throw refuse(
      `version ${id} has ${field} ${shown(value)}: expected 1 to ${MAX_ID_CHARS} characters without control characters`,
    );
  }
}

/**
 * Checks an `importVersions` batch the one way every driver checks it, before anything is written,
 * and returns the sequence numbers of its ids. Throws INVALID_INPUT naming the first version that
 * breaks a rule (the batch is then refused whole):
 * - each id made by {@link sequenceVersionId} for a sequence from 1 (`memver_0000000000000000` is
 *   no id a history makes) to {@link MAX_IMPORTED_SEQUENCE}, each above the one before;
 * - `at` (and `redactedAt` when set) a whole number of milliseconds from
 *   {@link EARLIEST_IMPORTED_AT} to a day past `now`;
 * - `actor` null or `{ type: 'session' | 'user' | 'api' | 'service', id }`, and `toolUseId` null or
 *   a string, each id of 1 to 256 characters without C0, C1 or bidirectional control characters.
 * Whether the batch starts above the target's newest version is the driver's own check (CONFLICT),
 * made in the step that writes.
 */
export function checkImportedVersions(
  versions: readonly Pick<DriverVersion, 'id' | 'at' | 'redactedAt' | 'actor' | 'toolUseId'>[],
  now: number = Date.now(),
): number[] {
  const latest = now + CLOCK_SKEW_MS;
  let previous = 0;
  return versions.map((version) => {
    const sequence = versionSequence(version.id);
    // Past the bound first: an id past 2^53 reads back rounded, and is no less past the bound.
    if (sequence > MAX_IMPORTED_SEQUENCE) {
      throw refuse(
        `version id ${version.id} is above ${sequenceVersionId(MAX_IMPORTED_SEQUENCE)}, the highest an import may carry (the ids made after it must stay exact)`,
      );
    }
    if (!(Number.isSafeInteger(sequence) && sequence > previous)) {
      throw refuse(
        `version ids must be ascending ids made by sequenceVersionId, got ${shown(version.id)} after ${previous === 0 ? 'nothing' : sequenceVersionId(previous)}`,
      );
    }
    checkTime(version.id, 'time', version.at, latest);
    if (version.redactedAt !== null) checkTime(version.id, 'redactedAt', version.redactedAt, latest);
    const actor = version.actor as { type?: unknown; id?: unknown } | null;
    if (actor !== null) {
      if (typeof actor !== 'object' || !ACTOR_TYPES.has(actor.type as string)) {
        throw refuse(
          `version ${version.id} has actor ${shown(actor)}: expected null or { type: 'session' | 'user' | 'api' | 'service', id }`,
        );
      }
      checkId(version.id, 'an actor id', actor.id);
    }
    if (version.toolUseId !== null) checkId(version.id, 'toolUseId', version.toolUseId);
    previous = sequence;
    return sequence;
  });
}
