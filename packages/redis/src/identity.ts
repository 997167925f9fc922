// The identity methods of the Redis driver (capabilities.records, updateById, removeExpect):
// readRecord, locate, listRecords and updateById, each one script (record-scripts.ts), one round
// trip. A record whose hash an edit on the server left to compute comes back with its content:
// the hash is computed here, given in the record, and filled in afterwards (FILL_HASHES, not
// waited for), on the condition that the file still has that content.

import { randomBytes } from 'node:crypto';
import type {
  DriverCallOptions,
  DriverFolderMarker,
  DriverPath,
  DriverRecord,
  DriverRecordOptions,
  DriverRecordPage,
  DriverRecordQuery,
  DriverUpdateByIdOptions,
  DriverUpdateChange,
  DriverUpdateResult,
} from '@memdir/core';
import {
  checkTime,
  compareUtf8,
  isFileId,
  recordQueryParts,
  refuseNotFound,
  refuseQuota,
  refuseTooLarge,
  sequenceVersionId,
} from '@memdir/core/driver';
import type { RedisCalls } from './calls.js';
import { quotaArgs, quotaBreach } from './edits.js';
import { unexpectedReply } from './errors.js';
import { fromStored, toStored } from './layout.js';
import { FILL_HASHES, LIST_RECORDS, RECORD, UPDATE } from './record-scripts.js';
import { contentHash, hexHash, historyBlock, storedHash } from './records.js';

/** A file's entry in the versions hash, as change-prelude.ts writes it (entry). */
interface Entry {
  readonly key: string;
  readonly fileId: string;
  /** Base64, or '' while not computed. */
  readonly sha: string;
  readonly createdAt: number;
  readonly changedAt: number;
  readonly versionSeq: string;
}

function parseEntry(value: unknown): Entry {
  const fields = String(value).split('\t');
  if (fields.length < 6) throw unexpectedReply('a file entry without its record');
  const [key, fileId, sha, created, changed, versionSeq] = fields as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  return { key, fileId, sha, createdAt: Number(created), changedAt: Number(changed), versionSeq };
}

/** Hashes computed here, to fill in: stored path, content key, hash (base64). */
type Fills = string[];

/**
 * The record of a reply's entry (stored path, entry, size, content | nil), its hash computed from
 * the content when the entry has none yet (noted in `fills`).
 */
export function recordOf(
  path: string,
  value: unknown,
  size: unknown,
  content: unknown,
  fills: Fills,
  withContent = false,
): DriverRecord {
  const entry = parseEntry(value);
  let sha = entry.sha;
  if (sha === '') {
    if (typeof content !== 'string') throw unexpectedReply('a record without its hash, without its content');
    sha = contentHash(content);
    fills.push(toStored(path), entry.key, sha);
  }
  const record: DriverRecord = {
    kind: 'file',
    path: path as DriverPath,
    fileId: entry.fileId,
    sha256: hexHash(sha),
    size: Number(size),
    createdAt: entry.createdAt,
    changedAt: entry.changedAt,
    versionId: entry.versionSeq === '' ? null : sequenceVersionId(Number(entry.versionSeq)),
  };
  return withContent ? { ...record, content: String(content) } : record;
}

/** Sends the hashes computed here, not waited for (a lost one is computed again next time). */
export function fill(calls: RedisCalls, fills: Fills): void {
  if (fills.length === 0) return;
  calls.run(FILL_HASHES, calls.readKeys, fills, undefined, false).catch((error: unknown) => {
    calls.backend.log.debug('hashes not filled in', { error: String(error) });
  });
}

async function recordBy(
  calls: RedisCalls,
  mode: 'p' | 'i',
  key: string,
  options: DriverRecordOptions | undefined,
): Promise<DriverRecord | null> {
  const withContent = options?.content === true;
  const reply = (await calls.read(
    RECORD,
    [mode, key, withContent ? '1' : '', options?.touch ? '1' : ''],
    options,
    false,
  )) as [string, string, string, string | null] | null;
  if (reply === null) return null;
  const fills: Fills = [];
  const record = recordOf(fromStored(reply[0]), reply[1], reply[2], reply[3], fills, withContent);
  fill(calls, fills);
  return record;
}

export function readRecord(
  calls: RedisCalls,
  path: DriverPath,
  options?: DriverRecordOptions,
): Promise<DriverRecord | null> {
  return recordBy(calls, 'p', toStored(path), options);
}

export async function locate(
  calls: RedisCalls,
  fileId: string,
  options?: DriverRecordOptions,
): Promise<DriverRecord | null> {
  if (!isFileId(fileId)) return null;
  return recordBy(calls, 'i', fileId, options);
}

/** The ZRANGEBYLEX bounds of a page: beneath `under`, after `after`. */
export function pageBounds(
  under: string,
  after: string | null,
): { prefix: string; low: string; high: string } {
  const prefix = under === '' ? '' : `${under}/`;
  let low = under === '' ? '-' : `[${prefix}`;
  const high = under === '' ? '+' : `(${under}0`;
  if (after !== null && after !== '') {
    // A folder's key skips everything beneath it: the first path after them all starts with the
    // folder and the byte after '/'.
    const bound = after.endsWith('/') ? `${after.slice(0, -1)}0` : after;
    if (under === '' || compareUtf8(bound, prefix) >= 0)
      low = after.endsWith('/') ? `[${bound}` : `(${bound}`;
  }
  return { prefix, low, high };
}

export async function listRecords(
  calls: RedisCalls,
  query: DriverRecordQuery,
  options?: DriverCallOptions,
): Promise<DriverRecordPage> {
  const { under, depth, after, limit } = recordQueryParts(query);
  const { prefix, low, high } = pageBounds(under, after);
  const reply = (await calls.read(
    LIST_RECORDS,
    [prefix, low, high, String(depth), String(limit), after ?? ''],
    options,
    false,
  )) as unknown[];
  const fills: Fills = [];
  const items: (DriverRecord | DriverFolderMarker)[] = [];
  for (let at = 1; at < reply.length; at += 5) {
    const key = String(reply[at + 1]);
    if (reply[at] === 'm') items.push({ kind: 'folder', path: key.slice(0, -1) as DriverPath });
    else items.push(recordOf(key, reply[at + 2], reply[at + 3], reply[at + 4], fills));
  }
  fill(calls, fills);
  return { items, next: reply[0] === null || reply[0] === undefined ? null : String(reply[0]) };
}

export async function updateById(
  calls: RedisCalls,
  fileId: string,
  change: DriverUpdateChange,
  options: DriverUpdateByIdOptions,
): Promise<DriverUpdateResult> {
  if (!isFileId(fileId)) throw refuseNotFound('');
  const { content } = change;
  const withContent = content !== undefined;
  const hash = withContent ? contentHash(content) : '';
  const to = change.path === undefined ? '' : toStored(change.path);
  const expected = options.expectSha256 === undefined ? '' : storedHash(options.expectSha256);
  const quota = quotaArgs(options.quota);
  const block = historyBlock(options.record, calls.registration);
  let known: [string, string] = ['', ''];
  for (let attempt = 0; ; attempt++) {
    const version = randomBytes(12).toString('base64url');
    const reply = await calls.change(
      UPDATE,
      (fence) => [
        fileId,
        withContent ? '1' : '',
        content ?? '',
        hash,
        to,
        expected,
        ...known,
        String(options.maxFileBytes),
        options.op,
        fence,
        ...quota,
        version,
        ...block,
      ],
      options,
    );
    if (reply[0] === 'ok') {
      const fills: Fills = [];
      const record = recordOf(fromStored(String(reply[2])), reply[3], reply[4], reply[5], fills);
      fill(calls, fills);
      return { record, changed: Number(reply[1]) === 1 };
    }
    const [, code, subject, current] = reply;
    if (code === 'NEEDSHA') {
      // The file's content was last changed by an edit on the server: its hash is computed here,
      // and the update sent again on the condition that the content is still that one.
      if (attempt >= 3 || typeof current !== 'string') throw unexpectedReply('NEEDSHA again');
      known = [String(subject), contentHash(current)];
      checkTime(options);
      continue;
    }
    if (code === 'QUOTA') throw refuseQuota(fromStored(String(reply[5])), quotaBreach(reply.slice(2)));
    if (code === 'TOO_LARGE') throw refuseTooLarge(fromStored(String(subject)));
    throw calls.refusal(reply, (change.path ?? '') as DriverPath);
  }
}
