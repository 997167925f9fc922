// When memdir colours its output: NO_COLOR off, FORCE_COLOR on (0 and false off), else a terminal.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { paint, wantsColour } from '../src/colour.js';

const pipe = () => new PassThrough();
const terminal = () => Object.assign(new PassThrough(), { isTTY: true });

describe('colours', () => {
  it.each([
    ['a terminal', terminal, {}, true],
    ['a pipe', pipe, {}, false],
    ['a terminal with NO_COLOR', terminal, { NO_COLOR: '1' }, false],
    ['a terminal with an empty NO_COLOR', terminal, { NO_COLOR: '' }, true],
    ['a pipe with FORCE_COLOR', pipe, { FORCE_COLOR: '1' }, true],
    ['a pipe with FORCE_COLOR=true', pipe, { FORCE_COLOR: 'true' }, true],
    ['a terminal with FORCE_COLOR=0', terminal, { FORCE_COLOR: '0' }, false],
    ['a terminal with FORCE_COLOR=false', terminal, { FORCE_COLOR: 'false' }, false],
    ['a pipe with FORCE_COLOR and NO_COLOR', pipe, { FORCE_COLOR: '1', NO_COLOR: '1' }, false],
  ])('%s: %s', (_, stream, env, expected) => {
    expect(wantsColour(stream(), env)).toBe(expected);
  });

  it('paints with the standard codes, whatever process.stdout is', () => {
    expect(paint('red', 'x')).toBe('\u001b[31mx\u001b[39m');
    expect(paint('bold', 'x')).toBe('\u001b[1mx\u001b[22m');
  });
});
