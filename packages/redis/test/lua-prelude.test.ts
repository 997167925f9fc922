import { describe, expect, it } from 'vitest';
import { preludeFor } from '../src/lua-prelude.js';

const PRELUDE = `
local F, V = KEYS[1], KEYS[2]
local LIMIT = 10

-- says hello
local function hello(name)
  return 'hello ' .. name
end

local function unused() return 1 end

local function greet(name)
  -- unused() is only named in this comment
  return hello(name)
end
local function twice(x) return greet(x) .. greet(x) end`;

describe('preludeFor: a script keeps the prelude functions it calls, and no other', () => {
  it('keeps what the body calls, directly and through the functions kept, in their order', () => {
    const kept = preludeFor(PRELUDE, 'return twice(ARGV[1])');
    expect(kept).toContain('local function hello');
    expect(kept).toContain('local function greet');
    expect(kept).toContain('local function twice');
    expect(kept).not.toContain('local function unused');
    expect(kept.indexOf('function hello')).toBeLessThan(kept.indexOf('function greet'));
    expect(kept.indexOf('function greet')).toBeLessThan(kept.indexOf('function twice'));
  });

  it('always keeps the statements that make no function (keys, constants)', () => {
    const kept = preludeFor(PRELUDE, 'return 1');
    expect(kept).toContain('local F, V = KEYS[1], KEYS[2]');
    expect(kept).toContain('local LIMIT = 10');
    expect(kept).not.toContain('function');
  });

  it('keeps a function named only in the body’s code, not in its comments', () => {
    expect(preludeFor(PRELUDE, '-- hello()\nreturn 1')).not.toContain('local function hello');
    expect(preludeFor(PRELUDE, 'return hello(ARGV[1])')).toContain('local function hello');
  });
});
