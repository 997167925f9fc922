import { MemoryToolError } from './errors.js';

/** The memory root every path lives under. */
export const MEMORY_ROOT = '/memories';

/** The longest valid path, in UTF-8 bytes after normalisation (SPEC section 2). */
export const MAX_PATH_BYTES = 1024;
/** The longest valid path segment, in UTF-8 bytes after normalisation. */
export const MAX_SEGMENT_BYTES = 255;

// C0 controls (U+0000-U+001F), DEL and the backslash.
const FORBIDDEN_CHARACTER = /[\u0000-\u001f\u007f\\]/;
// A percent-encoded octet: a store that decodes paths must not be handed `%2e%2e%2f`.
const PERCENT_ENCODED = /%[0-9a-fA-F]{2}/;

const utf8 = new TextEncoder();

function invalid(message: string): MemoryToolError {
  return new MemoryToolError('INVALID_PATH', message);
}

/**
 * Checks a path the model sent and returns its normalised form (SPEC section 2): Unicode NFC, no
 * empty or `.` segments, no trailing slash. `/memories/` becomes `/memories`.
 *
 * @throws MemoryToolError `INVALID_PATH` when the path is outside `/memories`, has a `..` segment, a
 *   control character, a backslash or a percent-encoded octet, or is too long.
 */
export function normalizeMemoryPath(input: string): string {
  if (FORBIDDEN_CHARACTER.test(input)) {
    throw invalid(
      `Path ${JSON.stringify(input)} contains a character that is not allowed (control characters and backslashes are refused)`,
    );
  }
  if (input !== MEMORY_ROOT && !input.startsWith(`${MEMORY_ROOT}/`)) {
    throw invalid(`Path must start with ${MEMORY_ROOT}, got: ${input}`);
  }
  const rawSegments = input.slice(MEMORY_ROOT.length).split('/');
  if (rawSegments.includes('..')) {
    throw invalid(`Path ${input} would escape ${MEMORY_ROOT} directory`);
  }
  const encoded = PERCENT_ENCODED.exec(input);
  if (encoded) {
    throw invalid(
      `Path ${input} contains the percent-encoded sequence ${encoded[0]}; percent-encoding is not allowed in paths`,
    );
  }
  const segments = input
    .normalize('NFC')
    .slice(MEMORY_ROOT.length)
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.');
  for (const segment of segments) {
    const bytes = utf8.encode(segment).length;
    if (bytes > MAX_SEGMENT_BYTES) {
      throw invalid(
        `Path ${input} has a name of ${bytes} bytes; each name may have at most ${MAX_SEGMENT_BYTES} bytes`,
      );
    }
  }
  const normalized = segments.length === 0 ? MEMORY_ROOT : `${MEMORY_ROOT}/${segments.join('/')}`;
  const bytes = utf8.encode(normalized).length;
  if (bytes > MAX_PATH_BYTES) {
    throw invalid(`Path ${input} is ${bytes} bytes long; a path may have at most ${MAX_PATH_BYTES} bytes`);
  }
  return normalized;
}

/**
 * The driver's form of a normalised memory path: without the `/memories` prefix and its slash, so
 * the root is `''` and `/memories/notes/a.md` is `notes/a.md`.
 */
export function toDriverPath(memoryPath: string): string {
  return memoryPath === MEMORY_ROOT ? '' : memoryPath.slice(MEMORY_ROOT.length + 1);
}

/** The inverse of {@link toDriverPath}. */
export function toMemoryPath(driverPath: string): string {
  return driverPath === '' ? MEMORY_ROOT : `${MEMORY_ROOT}/${driverPath}`;
}

/** True when a name is left out of listings: it starts with `.` or is `node_modules` (SPEC section 3). */
export function isHiddenName(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

/** The proper ancestors of a driver path, outermost first: `a/b/c` gives `a`, `a/b`. */
export function driverAncestors(driverPath: string): string[] {
  const ancestors: string[] = [];
  let index = driverPath.indexOf('/');
  while (index !== -1) {
    ancestors.push(driverPath.slice(0, index));
    index = driverPath.indexOf('/', index + 1);
  }
  return ancestors;
}

/** True when driver path `inner` lies strictly beneath `outer` (the root `''` contains every other path). */
export function isBeneath(inner: string, outer: string): boolean {
  if (outer === '') return inner !== '';
  return inner.length > outer.length && inner.startsWith(outer) && inner[outer.length] === '/';
}
