// The read methods of the Redis driver: read, stat, describe and list, each one read script
// (scripts.ts) on the namespace's keys; a read that touches the file for expiry is a change script
// on every key of the namespace.
import type {
  DriverCallOptions,
  DriverDescribeOptions,
  DriverDirectory,
  DriverEntry,
  DriverFile,
  DriverListing,
  DriverListingEntry,
  DriverPath,
} from '@memdir/core';
import { asDriverPath } from '@memdir/core/driver';
import type { RedisCalls } from './calls.js';
import { fromStored, toStored } from './layout.js';
import { DESCRIBE, DESCRIBE_TOUCH, LIST, READ, READ_TOUCH } from './scripts.js';

export async function read(
  calls: RedisCalls,
  path: DriverPath,
  options?: DriverCallOptions,
): Promise<DriverFile | DriverDirectory | null> {
  const reply = (
    options?.touch
      ? await calls.read(READ_TOUCH, [toStored(path), '1', '1'], options, true)
      : await calls.run(READ, calls.readKeys, [toStored(path), '1'], options, false)
  ) as string[] | null;
  if (reply === null) return null;
  if (reply[0] === 'd') return { kind: 'directory' };
  return { kind: 'file', version: reply[1]!, content: reply[2]! };
}

export async function stat(
  calls: RedisCalls,
  path: DriverPath,
  options?: DriverCallOptions,
): Promise<'file' | 'directory' | null> {
  const reply = (await calls.run(READ, calls.readKeys, [toStored(path), '0'], options, false)) as
    | string[]
    | null;
  if (reply === null) return null;
  return reply[0] === 'd' ? 'directory' : 'file';
}

export async function describe(
  calls: RedisCalls,
  path: DriverPath,
  options: DriverDescribeOptions,
): Promise<DriverFile | DriverListing | null> {
  const args = [toStored(path), String(Math.max(0, Math.floor(options.limit)))];
  const reply = (
    options.touch
      ? await calls.read(DESCRIBE_TOUCH, [...args, '1'], options, true)
      : await calls.run(DESCRIBE, calls.describeKeys, args, options, false)
  ) as [string, string, string] | [string, string, number, string] | null;
  if (reply === null) return null;
  if (reply[0] === 'f') return { kind: 'file', version: reply[1], content: reply[2] as string };
  const entries: DriverListingEntry[] = [];
  const packed = reply[3] as string;
  if (packed !== '') {
    for (const line of packed.split('\n')) {
      const tab = line.indexOf('\t');
      entries.push({
        path: fromStored(line.slice(tab + 1)),
        directory: line[0] === 'd',
        size: Number(line.slice(1, tab)),
      });
    }
  }
  return { kind: 'directory', size: Number(reply[1]), count: Number(reply[2]), entries };
}

export async function* list(
  calls: RedisCalls,
  dir: DriverPath,
  options?: DriverCallOptions,
): AsyncIterable<DriverEntry> {
  const packed = (await calls.run(LIST, calls.describeKeys, [toStored(dir)], options, false)) as string;
  if (packed === '') return;
  for (const line of packed.split('\n')) {
    const tab = line.indexOf('\t');
    yield { path: asDriverPath(fromStored(line.slice(tab + 1))), size: Number(line.slice(0, tab)) };
  }
}
