// docs/protocol.md is the document every store is held to; src/messages.ts renders every text the
// model reads, and src/errors.ts names every code. This test keeps the three in step: each message
// template is rendered with marker arguments (`{path}`, `{old_str}`...) and must appear in the
// document as the JSON string literal the document writes it as, and the document's error codes
// must be exactly the engine's. A new template or code fails here until the document has it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MEMORY_COMMANDS } from '../src/index.js';
import * as messages from '../src/messages.js';

const DOC_PATH = new URL('../../../docs/protocol.md', import.meta.url);
const doc = readFileSync(DOC_PATH, 'utf8');
const errorsSource = readFileSync(new URL('../src/errors.ts', import.meta.url), 'utf8');

/** Exports that build pieces of texts rather than texts; the document describes them in words. */
const PIECES = new Set(['formatSize', 'numberLine', 'listingLine', 'quote', 'describeValue']);

/** Where the document names a placeholder differently from the function's parameter. */
const PLACEHOLDER = new Map([
  ['oldStr', 'old_str'],
  ['from', 'old_path'],
  ['to', 'new_path'],
]);

/** A value whose description (`a symbol`) stands out, for the parameters described by `describeValue`. */
const DESCRIBED = Symbol('value');

/** Templates that compute from their arguments, rendered with real values, then marked. */
const RENDER: Record<string, (fn: (...args: never[]) => string) => string[]> = {
  pathTooLongAsSent: (fn) => {
    const long = 'x'.repeat(5000);
    return [
      (fn as (input: string) => string)(long)
        .replace(messages.quote(long), '{quoted}')
        .replace('5000', '{length}'),
    ];
  },
  multipleMatches: (fn) => {
    const render = fn as (oldStr: string, lines: string[], count: number) => string;
    const capped = render('{old_str}', ['{lines}'], 2);
    return [
      render('{old_str}', ['{lines}'], 1),
      capped.slice(capped.indexOf('{lines}'), capped.indexOf(' occurrences)') + 13).replace('2', '{count}'),
    ];
  },
  unknownCommand: (fn) => [
    (fn as (value: string, known: readonly string[]) => string)('{command}', MEMORY_COMMANDS),
  ],
  noAnswerWithin: (fn) => [(fn as (ms: number) => string)(5000)],
};

/** The parameter names of a function, from its source. */
function parameters(fn: (...args: never[]) => unknown): string[] {
  const match = /^(?:function\s*[\w$]*)?\s*\(([^)]*)\)/.exec(fn.toString());
  if (match === null) throw new Error(`cannot read the parameters of ${fn.name}`);
  return match[1]!
    .split(',')
    .map((parameter) => parameter.trim().replace(/[:=].*$/, ''))
    .filter((parameter) => parameter !== '');
}

/** Every template rendered with marker arguments, as the document writes it (JSON, unquoted). */
function renderedTemplates(): Array<{ name: string; text: string }> {
  const rendered: Array<{ name: string; text: string }> = [];
  for (const [name, value] of Object.entries(messages)) {
    if (PIECES.has(name)) continue;
    if (typeof value === 'string') {
      rendered.push({ name, text: value });
      continue;
    }
    if (typeof value !== 'function') continue;
    const fn = value as (...args: never[]) => string;
    const custom = RENDER[name];
    const texts = custom
      ? custom(fn)
      : [
          (fn as (...args: unknown[]) => string)(
            ...parameters(fn).map((parameter) =>
              parameter === 'value' ? DESCRIBED : `{${PLACEHOLDER.get(parameter) ?? parameter}}`,
            ),
          ).replace('a symbol', '{value}'),
        ];
    for (const text of texts) rendered.push({ name, text });
  }
  return rendered.map(({ name, text }) => ({ name, text: JSON.stringify(text).slice(1, -1) }));
}

/** The codes of the `MemoryToolErrorCode` union in src/errors.ts. */
function engineCodes(): string[] {
  const union = /export type MemoryToolErrorCode =([\s\S]*?);/.exec(errorsSource);
  expect(union, 'MemoryToolErrorCode not found in src/errors.ts').not.toBeNull();
  return [...union![1]!.matchAll(/'([A-Z_]+)'/g)].map((match) => match[1]!);
}

describe('docs/protocol.md agrees with the engine', () => {
  const templates = renderedTemplates();

  it('renders a good number of templates (the check reads the real module)', () => {
    expect(templates.length).toBeGreaterThan(40);
    for (const { name, text } of templates) {
      expect(text, name).not.toMatch(/undefined|NaN|\[object /);
    }
  });

  it.each(templates.map(({ name, text }) => [name, text]))('%s appears in the document', (_name, text) => {
    expect(doc.includes(text), `docs/protocol.md lacks: ${text}`).toBe(true);
  });

  it('documents every error code of the engine, in the table of section 7', () => {
    const codes = engineCodes();
    expect(codes).toContain('INVALID_INPUT');
    expect(codes).toContain('CONFLICT');
    const section = doc.slice(doc.indexOf('## 7. Errors'), doc.indexOf('## 8.'));
    const tableCodes = [...section.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((match) => match[1]);
    expect(tableCodes).toEqual(codes);
  });

  it('names no error code the engine does not have', () => {
    const codes = new Set(engineCodes());
    const named = new Set([...doc.matchAll(/`([A-Z][A-Z_]{3,})`/g)].map((match) => match[1]!));
    expect([...named].filter((code) => !codes.has(code))).toEqual([]);
  });

  it('gives every limit the engine enforces', () => {
    const limits = {
      MAX_PATH_BYTES: messages.MAX_PATH_BYTES,
      MAX_SEGMENT_BYTES: messages.MAX_SEGMENT_BYTES,
      MAX_PATH_CHARS: messages.MAX_PATH_CHARS,
      MAX_VIEW_LINES: messages.MAX_VIEW_LINES,
      MAX_MATCH_LINES: messages.MAX_MATCH_LINES,
      MAX_QUOTED_CHARS: messages.MAX_QUOTED_CHARS,
    };
    for (const [name, limit] of Object.entries(limits)) {
      const written = [String(limit), limit.toLocaleString('en-US')];
      expect(
        written.some((form) => new RegExp(`(^|[^0-9,])${form}([^0-9,]|$)`).test(doc)),
        `${name} = ${limit}`,
      ).toBe(true);
    }
  });

  it('keeps the section numbers code comments cite ("SPEC section N")', () => {
    for (const section of ['1', '2', '3', '4', '5', '6', '7', '8', '9']) {
      expect(doc).toMatch(new RegExp(`^## ${section}\\. `, 'm'));
    }
    for (const sub of ['4.1', '4.2', '4.3', '4.4', '4.5', '4.6']) {
      expect(doc).toMatch(new RegExp(`^### ${sub.replace('.', '\\.')} `, 'm'));
    }
  });

  it('lists every deliberate difference with a reason', () => {
    const section = doc.slice(doc.indexOf('## 9.'));
    const rows = section.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| case'));
    const differences = rows.filter((line) => !/^\|[-| ]+\|$/.test(line));
    expect(differences.length).toBeGreaterThan(20);
    for (const row of differences) {
      const cells = row.split(' | ');
      expect(cells.length, row).toBe(4);
      expect(cells[3]!.replace(/ \|$/, '').trim(), row).not.toBe('');
    }
  });
});
