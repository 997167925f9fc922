// Core's messages, worded for the memory tool's `/memories` paths, as the API shows them: in its own
// paths (`/a.md`), with the tool's root called "the store".
import { describe, expect, it } from 'vitest';
import { inApiPaths } from '../src/api/errors.js';

describe('inApiPaths', () => {
  it("drops the tool's /memories root from paths, and calls the root itself the store", () => {
    expect(inApiPaths("The content for /memories/notes/a.md is larger than this store's file limit.")).toBe(
      "The content for /notes/a.md is larger than this store's file limit.",
    );
    expect(inApiPaths('Delete or shorten files in /memories first.')).toBe(
      'Delete or shorten files in the store first.',
    );
    expect(inApiPaths('The path "/memories/a b.md" does not exist.')).toBe(
      'The path "/a b.md" does not exist.',
    );
  });

  it('keeps a folder named memories inside the store, and text that only looks alike', () => {
    expect(inApiPaths('File /memories/memories/x.md exists.')).toBe('File /memories/x.md exists.');
    expect(inApiPaths('see a/memories/x and /memoriesx.md')).toBe('see a/memories/x and /memoriesx.md');
  });
});
