// The change methods of the Redis driver: write, edit, remove and move, each one change script
// (change-scripts.ts, edit-script.ts) sent with its fence (calls.ts), one round trip; an edit the
// script cannot apply is applied here and written with a compare-and-swap (edits.ts), and a move
// or delete of a large folder goes on in bounded steps (step-scripts.ts).
import { randomBytes } from 'node:crypto';
import type {
  DriverChangeOptions,
  DriverEdit,
  DriverEditOptions,
  DriverEditOutcome,
  DriverPath,
  DriverRecord,
  DriverRemoveOptions,
  DriverWriteOptions,
} from '@memdir/core';
import { checkTime, isRefusal, sleep } from '@memdir/core/driver';
import type { RedisCalls } from './calls.js';
import { MOVE, REMOVE, WRITE } from './change-scripts.js';
import { EDIT } from './edit-script.js';
import { editArgs, editHere, editOutcome, editsOnServer, quotaArgs, receiptOutcome } from './edits.js';
import { arrivedTooLate, unexpectedReply } from './errors.js';
import { recordOf } from './identity.js';
import { toStored } from './layout.js';
import { contentHash, historyBlock, storedHash } from './records.js';

function newVersion(): string {
  return randomBytes(12).toString('base64url');
}

export async function write(
  calls: RedisCalls,
  path: DriverPath,
  content: string,
  options: DriverWriteOptions,
): Promise<{ version: string; record?: DriverRecord }> {
  const { recorded, record } = await writeScript(calls, path, content, options, '');
  return record ? { version: recorded, record } : { version: recorded };
}

/**
 * The write script; resolves to what it recorded (the version written, or `receipt` when one
 * was given), and whether that was this call's write or the first one's (a replay).
 */
async function writeScript(
  calls: RedisCalls,
  path: DriverPath,
  content: string,
  options: DriverWriteOptions,
  receipt: string,
): Promise<{ recorded: string; replayed: boolean; record?: DriverRecord }> {
  const { expect, op } = options;
  const stored = toStored(path);
  const version = newVersion();
  const kind = expect === undefined ? '' : 'absent' in expect ? 'absent' : 'version';
  const expected = expect !== undefined && 'version' in expect ? expect.version : '';
  const quota = quotaArgs(options.quota);
  const { record } = options;
  // Lua has no SHA-256: the hash of what the file's record (and its version) keeps is sent with it.
  const hash = contentHash(content);
  const block = historyBlock(record, calls.registration);
  const fileId = options.fileId ?? '';
  const reply = await calls.change(
    WRITE,
    (fence) => [
      stored,
      content,
      version,
      op,
      fence,
      kind,
      expected,
      ...quota,
      receipt,
      fileId,
      hash,
      ...block,
    ],
    options,
  );
  if (reply[0] === 'ok') {
    const replayed = reply[2] !== 'new';
    if (reply[3] === undefined || reply[3] === null) return { recorded: reply[1] as string, replayed };
    // The record as the write left it (a replay: as its receipt keeps it).
    const record = recordOf(path, reply[3], reply[4], content, []);
    return { recorded: reply[1] as string, replayed, record };
  }
  throw calls.refusal(reply, path);
}

/**
 * `str_replace` and `insert` in one script, one round trip (see edit-script.ts). The few edits
 * the script cannot apply come back with the file; they are applied here and written with a
 * compare-and-swap (two round trips), which starts over on fresh content when another writer got
 * there first. Every round goes through the script, so a replay answers its first outcome.
 */
export async function edit(
  calls: RedisCalls,
  path: DriverPath,
  edit: DriverEdit,
  options: DriverEditOptions,
): Promise<DriverEditOutcome> {
  const stored = toStored(path);
  const quota = quotaArgs(options.quota);
  const max = String(options.maxFileBytes);
  const touch = options.touch ? '1' : '';
  const block = historyBlock(options.record, calls.registration);
  let onServer = editsOnServer(edit);
  for (let attempt = 0; ; attempt++) {
    const args = editArgs(edit, onServer);
    const version = newVersion();
    const reply = await calls.change(
      EDIT,
      (fence) => [stored, ...args, max, options.op, fence, version, ...quota, touch, ...block],
      options,
    );
    const outcome = editOutcome(edit, reply);
    if (outcome === 'late') throw arrivedTooLate();
    if ('outcome' in outcome) return outcome;
    if (onServer) calls.backend.log.debug('edit applied in this process: the script would take too long');
    onServer = false;
    const applied = editHere(outcome.content, edit, options.maxFileBytes);
    if (applied.content === null) return applied.outcome;
    const write: DriverWriteOptions = {
      op: options.op,
      deadline: options.deadline,
      stats: options.stats,
      quota: options.quota,
      record: options.record,
      expect: { version: outcome.version },
    };
    try {
      const { recorded, replayed } = await writeScript(calls, path, applied.content, write, applied.receipt);
      return replayed ? receiptOutcome(edit, recorded) : applied.outcome;
    } catch (error) {
      if (isRefusal(error, 'QUOTA_EXCEEDED')) return { outcome: 'quota', breach: error.quota! };
      // The file changed or became a folder since it was read: look again.
      if (!isRefusal(error, 'CONFLICT') && !isRefusal(error, 'PATH_CONFLICT')) throw error;
    }
    checkTime(options);
    if (options.stats) options.stats.retries++;
    await sleep(Math.random() * Math.min(25, 2 ** attempt));
  }
}

export async function remove(
  calls: RedisCalls,
  path: DriverPath,
  options: DriverRemoveOptions,
): Promise<boolean> {
  const { maxSubtreeEntries } = calls.backend;
  const { expect } = options;
  const expectation = expect
    ? ['1', expect.fileId ?? '', expect.sha256 === undefined ? '' : storedHash(expect.sha256)]
    : ['', '', ''];
  let known = ['', ''];
  for (let attempt = 0; ; attempt++) {
    const reply = await calls.change(
      REMOVE,
      (fence) => [
        toStored(path),
        options.op,
        fence,
        String(maxSubtreeEntries),
        ...historyBlock(options.record, calls.registration),
        ...expectation,
        ...known,
      ],
      options,
    );
    if (!Array.isArray(reply)) return (reply as unknown) === 1;
    if (reply[0] === 'steps') {
      // A large folder: its journal is written, the steps remove it (step-scripts.ts).
      await calls.finishSteps(options);
      return true;
    }
    const [, code, subject, current] = reply;
    if (code !== 'NEEDSHA') throw calls.refusal(reply, path);
    // The file was last changed by an edit on the server: its hash is computed here, and the
    // remove sent again on the condition that its content is still that one.
    if (attempt >= 3 || typeof current !== 'string') throw unexpectedReply('NEEDSHA again');
    known = [String(subject), contentHash(current)];
    checkTime(options);
  }
}

export async function move(
  calls: RedisCalls,
  from: DriverPath,
  to: DriverPath,
  options: DriverChangeOptions,
): Promise<void> {
  const { maxSubtreeEntries } = calls.backend;
  const reply = await calls.change(
    MOVE,
    (fence) => [
      toStored(from),
      toStored(to),
      options.op,
      fence,
      String(maxSubtreeEntries),
      ...historyBlock(options.record, calls.registration),
    ],
    options,
  );
  // A large folder: its journal is written, the steps move it (step-scripts.ts).
  if (reply[0] === 'steps') await calls.finishSteps(options);
  else if (reply[0] !== 'ok') throw calls.refusal(reply, from);
}
