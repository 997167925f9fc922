// What a request may hold: its JSON body (bounded, valid UTF-8, an object with known fields only),
// its query (integers, booleans, views, times, limits) and memory paths (API.md section 4's rules
// beyond memdir's own, which core checks after these).
import { checkJsonShape } from '../json-shape.js';
import { ApiError, badRequest } from './errors.js';

/** The largest body read: a memory of 102,400 bytes sent as JSON escapes fits several times over. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** The JSON object of a request's body, refused when too large, not UTF-8, not JSON or not an object. */
export async function readBody(
  request: Request,
  fields: readonly string[],
): Promise<Record<string, unknown>> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  const tooLarge = () =>
    new ApiError(413, 'request_too_large', `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  if (request.body !== null) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > MAX_BODY_BYTES) {
        await reader.cancel().catch(() => {});
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw badRequest('The request body is not valid UTF-8.');
  }
  if (text.trim() === '') text = '{}';
  if (checkJsonShape(text, { maxDepth: 8 }) !== undefined)
    throw badRequest('The request body nests too deep.');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('The request body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest('The request body must be a JSON object.');
  }
  for (const key of Object.keys(value)) {
    if (!fields.includes(key)) throw badRequest(`Unknown field ${JSON.stringify(key.slice(0, 64))}.`);
  }
  return value as Record<string, unknown>;
}

/** `view`: `basic` or `full`. */
export function viewOf(query: URLSearchParams, fallback: 'basic' | 'full'): 'basic' | 'full' {
  const view = query.get('view');
  if (view === null || view === '') return fallback;
  if (view !== 'basic' && view !== 'full') throw badRequest('view must be "basic" or "full".');
  return view;
}

/** A non-negative integer of the query, or `fallback`. */
export function integerOf(query: URLSearchParams, name: string, fallback: number): number {
  const value = query.get(name);
  if (value === null || value === '') return fallback;
  if (!/^\d{1,9}$/.test(value)) throw badRequest(`${name} must be a non-negative integer.`);
  return Number(value);
}

/** `limit`, default 20, clamped to `max`; 0 is refused. */
export function limitOf(query: URLSearchParams, max: number): number {
  const limit = integerOf(query, 'limit', 20);
  if (limit < 1) throw badRequest('limit must be at least 1.');
  return Math.min(limit, max);
}

/** A query boolean (`true` or `false`). */
export function booleanOf(query: URLSearchParams, name: string, fallback: boolean): boolean {
  const value = query.get(name);
  if (value === null || value === '') return fallback;
  if (value !== 'true' && value !== 'false') throw badRequest(`${name} must be true or false.`);
  return value === 'true';
}

/** A time of the query (RFC 3339), as ms. */
export function timeOf(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null || value === '') return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i.test(value)
    ? Date.parse(value)
    : Number.NaN;
  if (Number.isNaN(ms)) throw badRequest(`${name} must be an RFC 3339 time, such as 2026-01-31T12:00:00Z.`);
  return ms;
}

/** An optional query string, bounded. */
export function stringOf(query: URLSearchParams, name: string): string | undefined {
  const value = query.get(name);
  if (value === null || value === '') return undefined;
  if (value.length > 256) throw badRequest(`${name} is longer than 256 characters.`);
  return value;
}

/** Control (C0, DEL, C1), format (Cf) and line/paragraph separator characters. */
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Cf}]/u;

function checkSegments(path: string, what: string, segments: readonly string[]): void {
  if (segments.length > 20) throw badRequest(`${what} has more than 20 segments.`, 'INVALID_PATH');
  for (const segment of segments) {
    if (segment === '' || segment === '.' || segment === '..') {
      throw badRequest(
        `${what} ${JSON.stringify(path.slice(0, 300))} has an empty, "." or ".." segment.`,
        'INVALID_PATH',
      );
    }
  }
  if (FORBIDDEN.test(path)) {
    throw badRequest(`${what} holds a control or format character.`, 'INVALID_PATH');
  }
  if (path.normalize('NFC') !== path) throw badRequest(`${what} is not in Unicode NFC.`, 'INVALID_PATH');
  if (Buffer.byteLength(path, 'utf8') > 1024)
    throw badRequest(`${what} is longer than 1,024 bytes.`, 'INVALID_PATH');
}

/** A memory's path (`/a/b.md`), checked. */
export function memoryPathOf(value: unknown, name = 'path'): string {
  if (typeof value !== 'string') throw badRequest(`${name} must be a string.`);
  if (!value.startsWith('/') || value.endsWith('/')) {
    throw badRequest(`${name} must start with "/" and must not end with "/".`, 'INVALID_PATH');
  }
  checkSegments(value, name, value.slice(1).split('/'));
  return value;
}

/** A listing's `path_prefix` (`/` or `/a/b/`), checked. */
export function pathPrefixOf(value: string | null): string {
  if (value === null || value === '' || value === '/') return '/';
  if (!value.startsWith('/') || !value.endsWith('/')) {
    throw badRequest('path_prefix must start and end with "/".', 'INVALID_PATH');
  }
  checkSegments(value, 'path_prefix', value.slice(1, -1).split('/'));
  return value;
}

/** The memory tool's path of an API path (`/a/b.md` is `/memories/a/b.md`). */
export const toolPath = (path: string): string => (path === '/' ? '/memories' : `/memories${path}`);

/** The API path of a memory tool path. */
export const apiPath = (path: string): string =>
  path === '/memories' ? '/' : path.slice('/memories'.length);

/** A SHA-256 in 64 lowercase hex digits. */
export function sha256Of(value: unknown, name: string): string {
  if (typeof value !== 'string' || !/^[0-9a-f]{64}$/.test(value)) {
    throw badRequest(`${name} must be a SHA-256 in 64 lowercase hex digits.`);
  }
  return value;
}

/** An ISO time of ms. */
export function iso(ms: number | null | undefined): string {
  const time = ms ?? 0;
  // A listing formats two times per memory: the date part is kept per UTC day, the time of day is
  // plain arithmetic (`toISOString` is most of a page's CPU otherwise). Other values: as `Date` says.
  if (!Number.isSafeInteger(time) || time < 0 || time >= LAST_FAST_MS) return new Date(time).toISOString();
  const day = Math.floor(time / DAY_MS);
  let date = datePrefixes.get(day);
  if (date === undefined) {
    date = new Date(day * DAY_MS).toISOString().slice(0, 11);
    if (datePrefixes.size >= 1024) datePrefixes.clear();
    datePrefixes.set(day, date);
  }
  const of = time - day * DAY_MS;
  const two = (value: number) => (value < 10 ? `0${value}` : `${value}`);
  const milli = of % 1000;
  return `${date}${two(Math.floor(of / 3_600_000))}:${two(Math.floor(of / 60_000) % 60)}:${two(Math.floor(of / 1000) % 60)}.${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}

const DAY_MS = 86_400_000;
/** 10000-01-01T00:00:00Z: from there on `toISOString` writes a six-digit year. */
const LAST_FAST_MS = 253_402_300_800_000;
/** `YYYY-MM-DDT` of recent UTC days, by day number. */
const datePrefixes = new Map<number, string>();
