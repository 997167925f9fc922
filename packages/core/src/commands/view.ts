// SPEC section 4.1: view a directory (a two-level listing) or a file (numbered lines).

import type { DriverFile, DriverListing } from '../driver/contract.js';
import { compareListingPaths, ListingFold } from '../driver/listing.js';
import type { Engine } from '../engine/engine.js';
import type { Operation } from '../engine/operation.js';
import { MemoryToolError } from '../errors.js';
import { type Fields, invalidInput, requireObject, requireString } from '../input.js';
import {
  fileHeader,
  fileTruncated,
  listingHeader,
  listingLine,
  listingTruncated,
  MAX_VIEW_LINES,
  numberLine,
  pathNotFoundPleaseProvide,
  tooManyLines,
  viewRangeEndBeforeStart,
  viewRangeNotTwoIntegers,
  viewRangeStartBelowOne,
  viewRangeStartPastEnd,
} from '../messages.js';
import type { DriverPath, MemoryPath } from '../path.js';
import type { ViewCommand } from '../tool.js';
import type { CommandModule } from './command.js';

/** A parsed `view`: `view_range`, when given, is two integers already checked for shape. */
type View = ViewCommand & { view_range?: [number, number] };

/** A view_range as the model sent it, for messages: shallow, so no input shape can make it throw. */
function showRange(value: unknown): string {
  if (Array.isArray(value)) {
    const items = value
      .slice(0, 3)
      .map((item) =>
        typeof item === 'number' || typeof item === 'boolean' || item === null
          ? String(item)
          : typeof item === 'string'
            ? JSON.stringify(item.slice(0, 20))
            : Array.isArray(item)
              ? '[...]'
              : typeof item === 'object'
                ? '{...}'
                : typeof item,
      );
    return `[${items.join(',')}${value.length > 3 ? ',...' : ''}]`;
  }
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 20));
  if (typeof value === 'object') return '{...}';
  return String(value);
}

/**
 * Checks `view_range` as far as its shape allows: two integers, `start >= 1`, and `end >= start`
 * unless `end` is -1. Whether `start` lies in the file is checked against the file.
 */
function viewRange(fields: Fields): [number, number] | undefined {
  const value = fields['view_range'];
  if (value === undefined || value === null) return undefined;
  if (
    !Array.isArray(value) ||
    value.length !== 2 ||
    // Both indices, not `every`: it skips the holes of a sparse array (`[, 2]` is not two integers).
    ![value[0], value[1]].every((item) => typeof item === 'number' && Number.isInteger(item))
  ) {
    throw invalidInput(viewRangeNotTwoIntegers(showRange(value)));
  }
  const [start, end] = value as [number, number];
  if (start < 1) throw invalidInput(viewRangeStartBelowOne(start, end));
  if (end !== -1 && end < start) throw invalidInput(viewRangeEndBeforeStart(start, end));
  return [start, end];
}

/** The most entries a listing of `path` can show within `maxChars`: each line has at least 5 characters past the path. */
function entryLimit(path: MemoryPath, maxChars: number): number {
  const shortestLine = '0B\t'.length + path.length + '/x'.length;
  return Math.floor(maxChars / (shortestLine + 1)) + 1;
}

/**
 * What is at `path`, in one call when the driver can describe, else `read` then `list` for a
 * directory, folded by the kit's reference fold.
 */
async function describe(
  operation: Operation,
  path: DriverPath,
  limit: number,
): Promise<DriverFile | DriverListing | null> {
  if (operation.engine.driver.describe) return operation.describe(path, limit);
  for (let attempt = 0; ; attempt++) {
    const node = await operation.read(path);
    if (node === null || node.kind === 'file') return node;
    const fold = new ListingFold(path);
    for (const entry of await operation.list(path, { skipHidden: true })) fold.add(entry);
    // Nothing at all beneath a directory that is not the root: it was deleted or moved between
    // the two calls (a folder of hidden files still lists them). Look again, so the view behaves
    // as if it ran entirely before or after that command.
    if (fold.added === 0 && path !== '' && attempt < 3) continue;
    return fold.result(limit);
  }
}

/** The listing of SPEC section 4.1: header, the directory's own line, entries while they fit. */
function renderListing(path: MemoryPath, listing: DriverListing, maxChars: number): string {
  const entries = [...listing.entries].sort((a, b) => compareListingPaths(a.path, b.path));
  const lines = [listingLine(listing.size, path, false)];
  let length = lines[0]!.length;
  let shown = 0;
  for (const entry of entries) {
    const line = listingLine(entry.size, `${path}/${entry.path}`, entry.directory);
    if (length + 1 + line.length > maxChars) break;
    lines.push(line);
    length += 1 + line.length;
    shown++;
  }
  const total = Math.max(listing.count, entries.length);
  const body = lines.join('\n');
  return shown < total
    ? `${listingHeader(path)}${body}\n${listingTruncated(shown, total)}`
    : `${listingHeader(path)}${body}`;
}

/** A file's numbered lines, `view_range` applied, truncated to `maxChars` (SPEC section 4.1). */
function renderFile(
  path: MemoryPath,
  content: string,
  range: [number, number] | undefined,
  maxChars: number,
) {
  const lines = content.split('\n');
  let first = 1;
  let last = lines.length;
  if (range) {
    const [start, end] = range;
    if (start > lines.length) {
      throw new MemoryToolError('INVALID_INPUT', viewRangeStartPastEnd(start, end, lines.length));
    }
    first = start;
    if (end !== -1) last = Math.min(end, lines.length);
  }
  if (lines.length > MAX_VIEW_LINES) throw new MemoryToolError('TOO_LARGE', tooManyLines(path, lines.length));
  // One string grown line by line (V8 joins them lazily), not an array joined at the end.
  let body = '';
  let truncated = false;
  let lastShown = first;
  for (let number = first; number <= last; number++) {
    const rendered = numberLine(number, lines[number - 1]!);
    if (number === first) {
      if (rendered.length > maxChars) {
        // The first line alone is too long: cut it so the model still sees where the file starts.
        body = rendered.slice(0, maxChars);
        truncated = true;
        break;
      }
      body = rendered;
    } else {
      if (body.length + 1 + rendered.length > maxChars) {
        truncated = true;
        break;
      }
      body = `${body}\n${rendered}`;
    }
    lastShown = number;
  }
  return truncated
    ? `${fileHeader(path)}${body}\n${fileTruncated(first, lastShown, lines.length)}`
    : `${fileHeader(path)}${body}`;
}

export const view: CommandModule<View> = {
  name: 'view',

  parse(input) {
    const fields = requireObject(input, 'view');
    const path = requireString(fields, 'path', 'view');
    const range = viewRange(fields);
    return range ? { command: 'view', path, view_range: range } : { command: 'view', path };
  },

  async run(engine: Engine, command, call) {
    const path = engine.path(command.path);
    const { maxViewChars } = engine.options;
    const node = await describe(
      engine.operation('view', call),
      path.driver,
      entryLimit(path.memory, maxViewChars),
    );
    if (node === null) throw new MemoryToolError('NOT_FOUND', pathNotFoundPleaseProvide(path.memory));
    if (node.kind === 'file') return renderFile(path.memory, node.content, command.view_range, maxViewChars);
    return renderListing(path.memory, node, maxViewChars);
  },
};
