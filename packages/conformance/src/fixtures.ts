// The data the conformance groups test with: texts that must come back exactly, literal names and
// their lookalikes, hostile path inputs' landing spots, paths of a given length.
import { normalizeMemoryPath } from '@memdir/core';

/**
 * Paths a careless store might write to when it mishandles `input`: the input with backslashes as
 * slashes, percent-decoded, with control characters dropped, with lone surrogates dropped or
 * turned into U+FFFD (what UTF-8 encoders make of them), with runs of slashes collapsed (a path
 * over 4096 characters normalised anyway), with `..` resolved, with a missing slash after
 * `/memories` added. Those that are valid memory paths are returned (normalised), with their
 * ancestors, for a snapshot to look at.
 */
export function landingSpots(input: string): string[] {
  const variants = new Set<string>();
  const decode = (text: string) =>
    text.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  const candidates = [
    input,
    input.replaceAll('\\', '/'),
    decode(input),
    decode(decode(input)).replaceAll('\\', '/'),
  ];
  for (const candidate of [...candidates]) {
    candidates.push(candidate.replace(/[\u0000-\u001f\u007f]/g, ''));
    // With the u flag, a surrogate range matches only unpaired surrogates.
    candidates.push(candidate.replace(/[\ud800-\udfff]/gu, '\ufffd'));
    candidates.push(candidate.replace(/[\ud800-\udfff]/gu, ''));
    candidates.push(candidate.replace(/\/{2,}/g, '/'));
    candidates.push(candidate.replace(/^\/?memories(?!\/|$)/, '/memories/'));
    candidates.push(`/memories/${candidate.replace(/^\/+/, '')}`);
  }
  for (const candidate of candidates) {
    const resolved: string[] = [];
    for (const segment of candidate.split('/')) {
      if (segment === '..') resolved.pop();
      else resolved.push(segment);
    }
    for (const path of [candidate, resolved.join('/') || '/']) {
      try {
        const normalized = normalizeMemoryPath(path);
        const segments = normalized.split('/');
        for (let end = 3; end <= segments.length; end++) variants.add(segments.slice(0, end).join('/'));
      } catch {
        // Not a valid path: nothing could land there through a conforming store.
      }
    }
  }
  return [...variants].sort();
}

/**
 * Texts a store must return exactly as written (SPEC section 3): no Unicode normalisation, no
 * newline conversion, no byte-order-mark handling, control characters kept.
 */
export const EXACT_TEXTS: ReadonlyArray<readonly [label: string, text: string]> = [
  ['NUL', 'a\u0000b\u0000'],
  ['a byte-order mark', '\ufeffafter a BOM'],
  ['a BOM in the middle', 'before\ufeffafter'],
  ['CR', 'old mac\rline\r'],
  ['CRLF', 'windows\r\nlines\r\n'],
  ['U+2028 and U+2029', 'line\u2028separator\u2029paragraph'],
  ['U+FFFE and U+FFFF', 'nonchar \ufffe and \uffff'],
  ['NFD e\u0301', 'cafe\u0301'],
  ['NFC and NFD side by side', '\u00e9 e\u0301'],
  ['C0 and C1 controls', '\u0001\u001b[0m\u007f\u0085\u009f'],
  ['astral characters', '\u{1f600}\u{10000}\u{10ffff}'],
  ['U+FFFD', '\ufffd'],
  ['only newlines', '\n\n'],
];

/**
 * Names holding characters that are special in some backend's query or pattern language, each with
 * the names those characters would match as wildcards or patterns (SPEC section 3: names are
 * literal). No name is both: the lookalikes are never literals.
 */
export const LITERAL_NAMES: ReadonlyArray<readonly [literal: string, lookalikes: readonly string[]]> = [
  ['a_b', ['aXb', 'a-b']], // SQL LIKE: _ is any one character
  ['a%', ['a', 'ab', 'abc']], // SQL LIKE: % is any run of characters
  ['%', ['x']],
  ['a*', ['ab', 'a']], // globs (Redis MATCH, shells): * is any run
  ['a?', ['ab', 'aXb']], // globs: ? is any one character
  ['[ab]', ['a', 'b']], // globs: a character class
  ['[!a]x', ['bx']], // globs: a negated class
  ['{a,b}', ['a', 'b']], // brace expansion
  ["it's", ['its']], // SQL string quoting
  ['say "hi"', ['say hi']], // JSON and shell quoting
  ['a:b', ['a', 'b']], // key separators (Redis), drive letters
  ['a b', ['ab', 'a', 'b']], // spaces
  ['a ', ['a']],
  [' a', ['a']],
  ['a.b', ['aXb']], // regular expressions: . is any character
  ['a+', ['aa']],
  ['^a$', ['a']],
  ['(a|b)', ['a', 'b']],
];

/** Every literal name of {@link LITERAL_NAMES}. */
export const LITERALS: readonly string[] = LITERAL_NAMES.map(([literal]) => literal);

/** Every lookalike of {@link LITERAL_NAMES}, once each. */
export const LOOKALIKES: readonly string[] = [
  ...new Set(LITERAL_NAMES.flatMap(([, lookalikes]) => lookalikes)),
];

/** A valid memory path of exactly `bytes` UTF-8 bytes (ASCII, names of at most 255 bytes). */
export function pathOfBytes(bytes: number): string {
  const available = bytes - '/memories'.length;
  const names = Math.ceil(available / 256);
  const letters = available - names;
  const segments: string[] = [];
  for (let index = 0; index < names; index++) {
    const length = Math.floor(letters / names) + (index < letters % names ? 1 : 0);
    segments.push(String.fromCharCode(97 + (index % 26)).repeat(length));
  }
  return `/memories/${segments.join('/')}`;
}
