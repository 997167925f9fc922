// Versions between the driver and the scripts: the history block every change script takes (who,
// what, and how long to keep), the fields a script sends back for a version, and the SHA-256 of a
// content, which Redis's Lua cannot compute (change-prelude.ts): sent with what the driver
// writes, and computed here from a version's content when an edit made on the server left it to
// compute.
import { createHash } from 'node:crypto';
import {
  type Actor,
  type ChangeRecord,
  type DriverPath,
  type DriverVersion,
  type DriverVersionWithContent,
  MemoryToolError,
  type VersionOperation,
} from '@memdir/core';
import { sequenceVersionId, versionSequence } from '@memdir/core/driver';
import { unexpectedReply } from './errors.js';
import { fromStored } from './layout.js';

const DAY_MS = 86_400_000;

/** The operations as the records number them (OP_* in change-prelude.ts). */
export const OPERATIONS: readonly VersionOperation[] = [
  'created',
  'modified',
  'renamed',
  'deleted',
  'restored',
];

const COMMANDS: readonly ChangeRecord['command'][] = [
  'create',
  'str_replace',
  'insert',
  'delete',
  'rename',
  'restore',
  'sweep',
  'import',
  'update',
];

const ACTOR_CODES: Record<Actor['type'], string> = { session: 's', user: 'u', api: 'a', service: 'v' };
const ACTOR_TYPES = new Map<string, Actor['type']>(
  Object.entries(ACTOR_CODES).map(([type, code]) => [code, type as Actor['type']]),
);

/** A record's number for a command. */
export function commandCode(command: ChangeRecord['command']): number {
  return COMMANDS.indexOf(command) + 1;
}

/** A record's number for an operation. */
export function operationCode(operation: VersionOperation): number {
  return OPERATIONS.indexOf(operation) + 1;
}

/** An actor type as a record keeps it (one letter). */
export function actorCode(type: Actor['type']): string {
  return ACTOR_CODES[type];
}

/**
 * The history block of a change script's ARGV: record or not, actor, command, tool use id,
 * retention, and the namespace's registry members (always, history or not).
 */
export function historyBlock(record: ChangeRecord | undefined, registration: string): string[] {
  if (!record) return ['', '', '', '', '', '', '', registration];
  const { actor, toolUseId } = record;
  return [
    '1',
    actor ? ACTOR_CODES[actor.type] : '',
    actor ? actor.id : '',
    String(commandCode(record.command)),
    toolUseId === null ? '' : `=${toolUseId}`,
    String(record.keepVersions),
    String(Math.round(record.keepDays * DAY_MS)),
    registration,
  ];
}

/** The SHA-256 of a content's UTF-8 bytes, as records keep it: base64 without padding (43 characters). */
export function contentHash(content: string): string {
  return createHash('sha256').update(content, 'utf8').digest('base64').slice(0, 43);
}

/** A record's hash as the contract gives it: lowercase hex. */
export function hexHash(stored: string): string {
  return Buffer.from(stored, 'base64').toString('hex');
}

/** A record's hash from the contract's hex. */
export function storedHash(hex: string): string {
  return Buffer.from(hex, 'hex').toString('base64').slice(0, 43);
}

/** How many fields a script sends per version (version_fields in change-prelude.ts). */
export const VERSION_FIELDS = 16;

/** A version a script sent back, with the hash it still lacked, if any, computed here. */
export interface DecodedVersion {
  readonly version: DriverVersionWithContent;
}

function nullable(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

/** The version in `fields` from `offset` (16 fields). */
export function decodeVersion(fields: readonly unknown[], offset = 0): DecodedVersion {
  const at = (index: number) => fields[offset + index];
  const seq = Number(at(0));
  const path = nullable(at(2));
  const previous = nullable(at(3));
  const actorType = nullable(at(6));
  const restoredFrom = at(11);
  const redactedAt = at(12);
  const stored = nullable(at(13));
  const size = at(14);
  const content = nullable(at(15));
  let sha256: string | null = null;
  if (stored === '') {
    // An edit made on the server: the hash is that of the content, which the script sent.
    if (content === null) throw unexpectedReply('a version without its hash, without its content');
    const hash = contentHash(content);
    sha256 = hexHash(hash);
  } else if (stored !== null) {
    sha256 = hexHash(stored);
  }
  const version: DriverVersionWithContent = {
    id: sequenceVersionId(seq),
    fileId: String(at(1)),
    path: path === null ? null : (fromStored(path) as DriverPath),
    previousPath: previous === null ? null : (fromStored(previous) as DriverPath),
    operation: OPERATIONS[Number(at(4)) - 1]!,
    sha256,
    size: size === null || size === undefined ? null : Number(size),
    at: Number(at(5)),
    actor: actorType === null ? null : { type: ACTOR_TYPES.get(actorType)!, id: String(at(7)) },
    command: COMMANDS[Number(at(8)) - 1]!,
    operationId: String(at(9)),
    toolUseId: nullable(at(10)),
    restoredFrom:
      restoredFrom === null || restoredFrom === undefined ? null : sequenceVersionId(Number(restoredFrom)),
    redactedAt: redactedAt === null || redactedAt === undefined ? null : Number(redactedAt),
    content,
  };
  return { version };
}

/** The version without its content, as the contract returns versions. */
export function withoutContent(version: DriverVersionWithContent): DriverVersion {
  const { content: _content, ...rest } = version;
  return rest;
}

/** The sequence number of a version id, or of a cursor this driver gave out. */
export function sequenceOf(id: string, what: string): number {
  const seq = versionSequence(id);
  if (!Number.isSafeInteger(seq) || seq < 1) {
    throw new MemoryToolError(
      'INVALID_INPUT',
      `${what} must be a version id of this store (memver_ and 16 digits), got ${JSON.stringify(id).slice(0, 80)}`,
    );
  }
  return seq;
}
