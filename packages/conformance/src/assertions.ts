// Assertions and helpers the conformance groups share: a command's outcome as text, a walk of the
// whole tree through listings, MemoryToolError checks, seeding, and the headers of SPEC section 4.

import type { MemoryStore } from '@memdir/core';
import { isMemoryToolError, type MemoryToolError, type MemoryToolErrorCode } from '@memdir/core';
import { expect } from 'vitest';

/** The outcome of a command as comparable text: the result, or the error's code and message. */
export async function outcome(promise: Promise<string>): Promise<string> {
  try {
    return `ok: ${await promise}`;
  } catch (error) {
    if (isMemoryToolError(error)) return `error ${error.code}: ${error.message}`;
    return `thrown (not a MemoryToolError): ${String(error)}`;
  }
}

/**
 * Views `/memories` and every root, then every directory and file the listings show, until
 * nothing new turns up. The result maps each path viewed to its outcome.
 */
export async function walk(store: MemoryStore, roots: readonly string[]): Promise<Record<string, string>> {
  const seen = new Map<string, string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const path = queue.shift()!;
    if (seen.has(path)) continue;
    const result = await outcome(store.view({ command: 'view', path }));
    seen.set(path, result);
    if (!result.startsWith("ok: Here're the files")) continue;
    // Listing lines are "{size}\t{path}" (paths hold no TAB or newline: control characters are
    // invalid); the first is the directory itself.
    for (const line of result.split('\n').slice(2)) {
      const tab = line.indexOf('\t');
      if (tab === -1) continue;
      const entry = line.slice(tab + 1);
      queue.push(entry.endsWith('/') ? entry.slice(0, -1) : entry);
    }
  }
  return Object.fromEntries([...seen].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Expects `promise` to reject with a MemoryToolError of `code`, and, when given, exactly `message`.
 * @returns the error, for further checks.
 */
export async function expectError(
  promise: Promise<unknown>,
  code: MemoryToolErrorCode,
  message?: string,
): Promise<MemoryToolError> {
  let result: unknown;
  try {
    result = await promise;
  } catch (error) {
    expect(isMemoryToolError(error), `expected a MemoryToolError, got ${String(error)}`).toBe(true);
    const toolError = error as MemoryToolError;
    expect({ code: toolError.code, message: toolError.message }).toEqual({
      code,
      message: message ?? toolError.message,
    });
    expect(typeof toolError.message === 'string' && toolError.message.length > 0).toBe(true);
    return toolError;
  }
  throw new Error(`Expected the error ${code}, but the command succeeded with: ${JSON.stringify(result)}`);
}

/** Creates each file in order. */
export async function seed(store: MemoryStore, files: Record<string, string>): Promise<void> {
  for (const [path, file_text] of Object.entries(files)) {
    await store.create({ command: 'create', path, file_text });
  }
}

/** Views a path and returns the text. */
export function view(store: MemoryStore, path: string, view_range?: number[]): Promise<string> {
  return store.view(view_range ? { command: 'view', path, view_range } : { command: 'view', path });
}

/** The header of a directory view. */
export function listingHeader(path: string): string {
  return `Here're the files and directories up to 2 levels deep in ${path}, excluding hidden items and node_modules:\n`;
}

/** The header of a file view. */
export function fileHeader(path: string): string {
  return `Here's the content of ${path} with line numbers:\n`;
}

/** The result text of a successful str_replace, around the given snippet lines. */
export function snippetResult(lines: readonly string[]): string {
  return `The memory file has been edited. Here is the snippet showing the change (with line numbers):\n${lines.join('\n')}`;
}

/**
 * The content of a file as its (untruncated) view shows it: the numbered lines without their
 * numbers, joined by `\n`. Exactly the stored text, for any content of under a million lines.
 */
export function contentOf(viewText: string): string {
  const body = viewText.slice(viewText.indexOf(' with line numbers:\n') + ' with line numbers:\n'.length);
  return body
    .split('\n')
    .map((line) => line.slice('     1\t'.length))
    .join('\n');
}
