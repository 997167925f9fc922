// Bounds on a JSON body checked in one pass over its text, before `JSON.parse` and before any work
// on its elements: a 1M-element array or a document nested a million deep costs one linear scan,
// never a parse, a schema check per element or a log word per element.

/** Why a body was refused, or `undefined` when it is within the bounds. */
export type JsonShapeRefusal = 'too-deep' | 'batch-too-large';

export interface JsonShapeLimits {
  /** The deepest nesting of arrays and objects allowed. @default 64 */
  maxDepth?: number;
  /** The most elements a top-level array (a JSON-RPC batch) may hold; 0 refuses every batch. @default 0 */
  maxBatch?: number;
}

/**
 * Scans `text` (not necessarily valid JSON: the parser decides that) and says which bound it
 * passes. Strings are skipped with their escapes, so brackets inside them do not count.
 */
export function checkJsonShape(text: string, limits: JsonShapeLimits = {}): JsonShapeRefusal | undefined {
  const maxDepth = limits.maxDepth ?? 64;
  const maxBatch = limits.maxBatch ?? 0;
  // Most bodies can pass no bound: no more brackets in all (strings too) than the depth allowed,
  // and no `[` or fewer commas than a batch may have elements. Counting is cheaper than the scan.
  const batchFits = !text.includes('[') || count(text, [','], maxBatch) < maxBatch;
  if (batchFits && count(text, ['[', '{'], maxDepth) <= maxDepth) return undefined;
  let depth = 0;
  let topIsArray = false;
  let elements = 0;
  let sawValue = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x22 /* " */) {
      for (index++; index < text.length; index++) {
        const inner = text.charCodeAt(index);
        if (inner === 0x5c /* \ */) index++;
        else if (inner === 0x22) break;
      }
      if (depth === 1 && topIsArray) sawValue = true;
      continue;
    }
    if (code === 0x5b /* [ */ || code === 0x7b /* { */) {
      if (depth === 0 && code === 0x5b) topIsArray = true;
      else if (depth === 1 && topIsArray) sawValue = true;
      depth++;
      if (depth > maxDepth) return 'too-deep';
    } else if (code === 0x5d /* ] */ || code === 0x7d /* } */) {
      depth--;
    } else if (depth === 1 && topIsArray) {
      if (code === 0x2c /* , */) {
        elements++;
        if (elements + 1 > maxBatch) return 'batch-too-large';
      } else if (code > 0x20) {
        sawValue = true;
      }
    }
  }
  if (topIsArray && sawValue && elements + 1 > maxBatch) return 'batch-too-large';
  return undefined;
}

/** How many of `characters` `text` holds, counting no further than `limit + 1`. */
function count(text: string, characters: readonly string[], limit: number): number {
  let found = 0;
  for (const character of characters) {
    for (let index = text.indexOf(character); index !== -1; index = text.indexOf(character, index + 1)) {
      if (++found > limit) return found;
    }
  }
  return found;
}
