// The history in an archive (`memdir export --with-history`, manifest version 2): every version of
// the store, oldest first, as JSON lines (one version a line, with its content) in entries of at
// most a few MiB each, `memdir-history/versions-000001.jsonl` and on, which the manifest lists with
// their sizes and SHA-256. A line holds a version as the driver contract has it (`DriverVersion`
// and its content), paths written as memory paths (`/memories/...`). This file writes them and
// reads one line back, checking it as hostile input; archive-history-stage.ts keeps them on disk
// while an import checks them.
import { createHash } from 'node:crypto';
import {
  type Actor,
  type DriverPath,
  type DriverVersionWithContent,
  isMemoryToolError,
  MEMORY_COMMANDS,
  type MemoryDriver,
  normalizeMemoryPath,
  toDriverPath,
  toMemoryVersion,
  type VersionOperation,
} from '@memdir/core';
import { checkImportedVersions } from '@memdir/core/driver';
import { ArchiveError } from './archive-error.js';
import type { ManifestHistory, ManifestHistoryChunk } from './archive-manifest.js';

/** The folder of the history's entries, at the archive's top level (beside `memories/`). */
export const HISTORY_FOLDER = 'memdir-history';

/** A chunk is closed once it holds this many bytes (a single larger version is a chunk alone). */
const CHUNK_BYTES = 4 * 1024 * 1024;

/** The largest chunk an import reads (a version of a file of up to 16 MiB, escaped as JSON). */
export const MAX_CHUNK_BYTES = 64 * 1024 * 1024;

/** The name of the `index`-th chunk (from 1). */
export function chunkName(index: number): string {
  return `${HISTORY_FOLDER}/versions-${String(index).padStart(6, '0')}.jsonl`;
}

const ROOT = '/memories';

/**
 * One version as its line of the archive (without the newline): the fields of core's
 * `toMemoryVersion`, in its order, but with the driver's times in milliseconds (`at` in place of
 * `createdAt`, `redactedAt`), then the content.
 */
export function versionLine(version: DriverVersionWithContent): string {
  const fields = Object.entries(toMemoryVersion(version)).map(([key, value]) =>
    key === 'createdAt' ? ['at', version.at] : [key, key === 'redactedAt' ? version.redactedAt : value],
  );
  return JSON.stringify({ ...Object.fromEntries(fields), content: version.content });
}

const OPERATIONS: readonly VersionOperation[] = ['created', 'modified', 'renamed', 'deleted', 'restored'];
const COMMANDS: readonly string[] = [...MEMORY_COMMANDS, 'restore', 'sweep', 'import'];
const ACTOR_TYPES: readonly Actor['type'][] = ['session', 'user', 'api', 'service'];
const VERSION_ID = /^memver_\d{16}$/;
const FILE_ID = /^mem_[A-Za-z0-9_-]{16,200}$/;
const SHA256 = /^[0-9a-f]{64}$/;
/** Operation ids and tool call ids: printable ASCII, as the engine and the integrations make them. */
const TOKEN = /^[\x21-\x7e]{1,512}$/;

function sha256(content: string): string {
  return createHash('sha256').update(content, 'utf8').digest('hex');
}

function isTime(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/**
 * One line of a history chunk, checked as hostile input: every field of the right type and form,
 * paths the protocol accepts, and content that matches its size and SHA-256 (a version that is
 * neither a deletion nor redacted must have its content).
 * @throws ArchiveError naming `where` and the first problem.
 */
export function parseVersionLine(line: string, where: string): DriverVersionWithContent {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new ArchiveError(`${where} is not a JSON line`);
  }
  const refuse = (what: string): never => {
    throw new ArchiveError(`${where}: ${what}`);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) refuse('not a version');
  const v = value as Record<string, unknown>;
  if (typeof v['id'] !== 'string' || !VERSION_ID.test(v['id'])) refuse('the id is not a memver_ id');
  if (typeof v['fileId'] !== 'string' || !FILE_ID.test(v['fileId'])) refuse('the file id is not a mem_ id');
  const operation = v['operation'] as VersionOperation;
  if (!OPERATIONS.includes(operation))
    refuse('the operation is not one of created, modified, renamed, deleted, restored');
  const pathOf = (key: 'path' | 'previousPath'): DriverPath | null => {
    const path = v[key];
    if (path === null) return null;
    if (typeof path !== 'string') return refuse(`the ${key} is not a path`);
    try {
      const normalized = normalizeMemoryPath(path);
      if (normalized !== path || normalized === ROOT) refuse(`the ${key} is not a file's memory path`);
      return toDriverPath(normalized);
    } catch (error) {
      if (error instanceof ArchiveError) throw error;
      return refuse(`the ${key} is refused: ${isMemoryToolError(error) ? error.message : String(error)}`);
    }
  };
  const path = pathOf('path');
  const previousPath = pathOf('previousPath');
  if (!isTime(v['at'])) refuse('the time is not a number of milliseconds');
  const redactedAt = v['redactedAt'];
  if (redactedAt !== null && !isTime(redactedAt)) refuse('redactedAt is not null or a time');
  const actor = v['actor'];
  if (actor !== null) {
    const { type, id } = (typeof actor === 'object' ? actor : {}) as Record<string, unknown>;
    if (!ACTOR_TYPES.includes(type as Actor['type']) || typeof id !== 'string' || id.length > 256)
      refuse('the actor is not null or { type, id }');
  }
  if (!COMMANDS.includes(v['command'] as string)) refuse('the command is not one memdir records');
  if (typeof v['operationId'] !== 'string' || !TOKEN.test(v['operationId']))
    refuse('the operation id is missing');
  const toolUseId = v['toolUseId'];
  if (toolUseId !== null && (typeof toolUseId !== 'string' || !TOKEN.test(toolUseId)))
    refuse('the tool call id is not null or an id');
  const restoredFrom = v['restoredFrom'];
  if (restoredFrom !== null && (typeof restoredFrom !== 'string' || !VERSION_ID.test(restoredFrom)))
    refuse('restoredFrom is not null or a memver_ id');
  const { content, size, sha256: hash } = v;
  const redacted = redactedAt !== null;
  if (redacted) {
    // What a redaction removes is gone from the archive too.
    if (path !== null || previousPath !== null || content !== null || size !== null || hash !== null)
      refuse('a redacted version still has a path, content, size or hash');
  } else {
    if (path === null) refuse('the version has no path');
    if ((operation === 'renamed') !== (previousPath !== null))
      refuse('a rename needs its previous path, and only a rename has one');
    if (operation === 'deleted') {
      if (content !== null || size !== null || hash !== null)
        refuse('a deletion has content, a size or a hash');
    } else {
      if (typeof content !== 'string') refuse('the version has no content');
      if (Buffer.byteLength(content as string, 'utf8') !== size || sha256(content as string) !== hash)
        refuse('the content does not match its size and SHA-256');
    }
  }
  if (typeof hash === 'string' && !SHA256.test(hash)) refuse('the SHA-256 is not lowercase hex');
  const version: DriverVersionWithContent = {
    id: v['id'] as string,
    fileId: v['fileId'] as string,
    path,
    previousPath,
    operation,
    sha256: hash as string | null,
    size: size as number | null,
    at: v['at'] as number,
    actor: actor === null ? null : { type: (actor as Actor).type, id: (actor as Actor).id },
    command: v['command'] as DriverVersionWithContent['command'],
    operationId: v['operationId'] as string,
    toolUseId: toolUseId as string | null,
    restoredFrom: restoredFrom as string | null,
    redactedAt: redactedAt as number | null,
    content: content as string | null,
  };
  // The rule every store applies to imported versions (id within the bound, times from 2000 to a
  // day past now, actor and tool use ids without control characters), here with the line's name,
  // before anything is written.
  try {
    checkImportedVersions([version]);
  } catch (error) {
    refuse((error as Error).message.replace(/^importVersions: /, ''));
  }
  return version;
}

/** What {@link exportHistory} wrote, and the file id and version of every file its newest version leaves. */
export interface ExportedHistory {
  readonly history: ManifestHistory;
  readonly tree: ReadonlyMap<string, { readonly fileId: string; readonly version: string }>;
}

/**
 * Writes every version of `driver` (it must have history), oldest first, through `emit` as chunk
 * entries: `emit(name, body)` writes one tar entry. Reads up to `concurrency` versions at once, in
 * order. Holds the ids of every version (as the copy of core does) and one chunk.
 * @param progress called with the versions written so far, of all.
 */
export async function exportHistory(
  driver: MemoryDriver,
  emit: (name: string, body: Buffer) => Promise<void>,
  options: { concurrency: number; progress?: (written: number, total: number) => void },
): Promise<ExportedHistory> {
  const listVersions = driver.listVersions!.bind(driver);
  const readVersion = driver.readVersion!.bind(driver);
  // Only ids are held for the whole history: contents are read as they are written.
  const ids: string[] = [];
  for (let cursor: string | undefined; ; ) {
    const page = await listVersions({ limit: 1_000, cursor });
    for (const version of page.versions) ids.push(version.id);
    if (page.next === null) break;
    cursor = page.next;
  }
  ids.reverse();
  const chunks: ManifestHistoryChunk[] = [];
  let lines: string[] = [];
  let bytes = 0;
  let written = 0;
  const flush = async () => {
    if (lines.length === 0) return;
    const body = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
    const name = chunkName(chunks.length + 1);
    await emit(name, body);
    chunks.push({
      name,
      versions: lines.length,
      size: body.length,
      sha256: createHash('sha256').update(body).digest('hex'),
    });
    lines = [];
    bytes = 0;
  };
  // Each read settled either way, so that none rejects unobserved while earlier ones are written.
  const reads: Promise<{ version: DriverVersionWithContent | null } | { error: unknown }>[] = [];
  let next = 0;
  const readAhead = () => {
    if (next >= ids.length) return;
    reads.push(
      readVersion(ids[next++]!).then(
        (version) => ({ version }),
        (error: unknown) => ({ error }),
      ),
    );
  };
  for (let index = 0; index < Math.max(1, options.concurrency); index++) readAhead();
  let newest: string | undefined;
  while (reads.length > 0) {
    // In order; a read that fails fails the export.
    const read = await reads.shift()!;
    readAhead();
    if ('error' in read) throw read.error;
    const { version } = read;
    // Pruned since it was listed: the history has a gap there, as the store's now has.
    if (version === null) continue;
    const line = versionLine(version);
    if (bytes > 0 && bytes + line.length > CHUNK_BYTES) await flush();
    lines.push(line);
    bytes += Buffer.byteLength(line, 'utf8') + 1;
    newest = version.id;
    written++;
    options.progress?.(written, ids.length);
  }
  await flush();
  const tree = new Map<string, { fileId: string; version: string }>();
  if (newest !== undefined) {
    for (const entry of await driver.treeAt!({ version: newest })) {
      tree.set(entry.path, { fileId: entry.fileId, version: entry.version });
    }
  }
  return { history: { versions: written, chunks }, tree };
}
