// The path rules of SPEC section 2 in one place: the two path types (`MemoryPath`, what the model
// sees; `DriverPath`, what drivers receive), the one function that makes each from untrusted input,
// and the helpers drivers use on them (ancestors, UTF-8 lengths, hidden names).
import { MemoryToolError } from './errors.js';
import {
  MAX_PATH_BYTES,
  MAX_PATH_CHARS,
  MAX_SEGMENT_BYTES,
  MEMORY_ROOT,
  pathEscapes,
  pathForbiddenCharacter,
  pathNotUnderRoot,
  pathPercentEncoded,
  pathSegmentTooLong,
  pathTooLong,
  pathTooLongAsSent,
} from './messages.js';

export { MAX_PATH_BYTES, MAX_PATH_CHARS, MAX_SEGMENT_BYTES, MEMORY_ROOT };

declare const memoryPathBrand: unique symbol;
declare const driverPathBrand: unique symbol;

/**
 * A memory path after {@link normalizeMemoryPath}: `/memories` or `/memories/...`, NFC, no empty, `.`
 * or `..` segment, no trailing slash. What results and messages echo.
 */
export type MemoryPath = string & { readonly [memoryPathBrand]: true };

/**
 * A driver path: a {@link MemoryPath} without `/memories` and its slash, so the root is `''` and
 * `/memories/notes/a.md` is `notes/a.md`. What drivers receive. Names are literal: no character in
 * them is special (SPEC section 3).
 */
export type DriverPath = string & { readonly [driverPathBrand]: true };

// C0 controls (U+0000-U+001F), DEL and the backslash.
const FORBIDDEN_CHARACTER = /[\u0000-\u001f\u007f\\]/;
// With the `u` flag a surrogate pair is one code point, so this matches only unpaired surrogates.
const LONE_SURROGATE = /[\ud800-\udfff]/u;
const ASCII = /^[\x00-\x7f]*$/;
// A percent-encoded octet: a store that decodes paths must not be handed `%2e%2e%2f`.
const PERCENT_ENCODED = /%[0-9a-fA-F]{2}/;

function invalid(message: string): MemoryToolError {
  return new MemoryToolError('INVALID_PATH', message);
}

/** True when `text` holds an unpaired UTF-16 surrogate, which UTF-8 cannot encode. */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/** The UTF-8 length of `text` without encoding it (a lone surrogate counts as U+FFFD, 3 bytes). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        index++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

const SLASH = 0x2f;
const DOT = 0x2e;

/**
 * The common case in one pass, without a regular expression or an array: printable ASCII other
 * than `\\` and `%`, beneath `/memories/`, every segment non-empty, neither `.` nor `..` and at
 * most 255 bytes, the whole at most `limit` bytes. Such a path passes every check of
 * {@link normalizeMemoryPath} and is already its own normal form (ASCII is NFC); anything else
 * takes the full checks, which also word the errors.
 */
function isNormalPlainPath(input: string, limit: number): boolean {
  const length = input.length;
  const start = MEMORY_ROOT.length + 1;
  if (
    length <= start ||
    length > limit ||
    !input.startsWith(MEMORY_ROOT) ||
    input.charCodeAt(start - 1) !== SLASH
  ) {
    return false;
  }
  let segmentStart = start;
  for (let index = start; index <= length; index++) {
    const code = index === length ? SLASH : input.charCodeAt(index);
    if (code === SLASH) {
      const size = index - segmentStart;
      if (size === 0 || size > MAX_SEGMENT_BYTES) return false;
      if (
        input.charCodeAt(segmentStart) === DOT &&
        (size === 1 || (size === 2 && input.charCodeAt(segmentStart + 1) === DOT))
      ) {
        return false;
      }
      segmentStart = index + 1;
    } else if (code < 0x20 || code > 0x7e || code === 0x5c || code === 0x25) {
      return false;
    }
  }
  return true;
}

/** Options of {@link normalizeMemoryPath}. */
export interface NormalizeOptions {
  /**
   * The longest normalised path in UTF-8 bytes: a store's own limit when below the protocol's
   * (the driver's `capabilities.maxPathBytes`).
   * @default 1024
   */
  maxPathBytes?: number | undefined;
}

/**
 * Checks a path the model sent and returns its normalised form (SPEC section 2): Unicode NFC, no
 * empty or `.` segments, no trailing slash. `/memories/` becomes `/memories`.
 *
 * @throws MemoryToolError `INVALID_PATH` when the path is longer than 4096 characters as sent,
 *   outside `/memories`, has a `..` segment, a control character, a backslash, an unpaired
 *   surrogate or a percent-encoded octet, or is too long once normalised.
 */
export function normalizeMemoryPath(input: string, options: NormalizeOptions = {}): MemoryPath {
  const limit = Math.min(options.maxPathBytes ?? MAX_PATH_BYTES, MAX_PATH_BYTES);
  if (isNormalPlainPath(input, limit)) return input as MemoryPath;
  // First, before any work that grows with the input: 100 MB of slashes is refused at once.
  if (input.length > MAX_PATH_CHARS) throw invalid(pathTooLongAsSent(input));
  if (FORBIDDEN_CHARACTER.test(input) || LONE_SURROGATE.test(input)) {
    throw invalid(pathForbiddenCharacter(input));
  }
  if (input !== MEMORY_ROOT && !input.startsWith(`${MEMORY_ROOT}/`)) throw invalid(pathNotUnderRoot(input));
  const rawSegments = input.slice(MEMORY_ROOT.length).split('/');
  if (rawSegments.includes('..')) throw invalid(pathEscapes(input));
  const encoded = PERCENT_ENCODED.exec(input);
  if (encoded) throw invalid(pathPercentEncoded(input, encoded[0]));
  // ASCII is its own NFC: skip the normalisation for the common case.
  const segments = (ASCII.test(input) ? input : input.normalize('NFC'))
    .slice(MEMORY_ROOT.length)
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.');
  for (const segment of segments) {
    const bytes = utf8Length(segment);
    if (bytes > MAX_SEGMENT_BYTES) throw invalid(pathSegmentTooLong(input, bytes));
  }
  const normalized = segments.length === 0 ? MEMORY_ROOT : `${MEMORY_ROOT}/${segments.join('/')}`;
  const bytes = utf8Length(normalized);
  if (bytes > limit) throw invalid(pathTooLong(input, bytes, limit));
  return normalized as MemoryPath;
}

/**
 * The driver's form of a normalised memory path: without the `/memories` prefix and its slash, so
 * the root is `''` and `/memories/notes/a.md` is `notes/a.md`.
 */
export function toDriverPath(memoryPath: MemoryPath): DriverPath {
  return (memoryPath === MEMORY_ROOT ? '' : memoryPath.slice(MEMORY_ROOT.length + 1)) as DriverPath;
}

/** The inverse of {@link toDriverPath}. */
export function toMemoryPath(driverPath: DriverPath | string): MemoryPath {
  return (driverPath === '' ? MEMORY_ROOT : `${MEMORY_ROOT}/${driverPath}`) as MemoryPath;
}

/** True when a name is left out of listings: it starts with `.` or is `node_modules` (SPEC section 3). */
export function isHiddenName(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

/** The proper ancestors of a driver path, outermost first: `a/b/c` gives `a`, `a/b`. */
export function driverAncestors(driverPath: string): DriverPath[] {
  const ancestors: DriverPath[] = [];
  let index = driverPath.indexOf('/');
  while (index !== -1) {
    ancestors.push(driverPath.slice(0, index) as DriverPath);
    index = driverPath.indexOf('/', index + 1);
  }
  return ancestors;
}

/** True when driver path `inner` lies strictly beneath `outer` (the root `''` contains every other path). */
export function isBeneath(inner: string, outer: string): boolean {
  if (outer === '') return inner !== '';
  return inner.length > outer.length && inner.startsWith(outer) && inner[outer.length] === '/';
}
