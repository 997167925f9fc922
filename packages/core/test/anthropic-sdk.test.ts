// The store is a valid handlers object for the Anthropic SDK's betaMemoryTool: this file typechecks
// only if MemoryStore matches MemoryToolHandlers, and runs commands the way the tool runner does.
import { betaMemoryTool, type MemoryToolHandlers } from '@anthropic-ai/sdk/helpers/beta/memory';
import { describe, expect, it } from 'vitest';
import { createInMemoryStore, type MemoryStore } from '../src/index.js';

describe('betaMemoryTool(createInMemoryStore())', () => {
  it('accepts a MemoryStore as its handlers and runs commands through it', async () => {
    const store: MemoryStore = createInMemoryStore();
    const handlers: MemoryToolHandlers = store;
    const tool = betaMemoryTool(handlers);
    expect(tool.type).toBe('memory_20250818');
    expect(tool.name).toBe('memory');
    expect(await tool.run({ command: 'create', path: '/memories/notes.md', file_text: 'Hello' })).toBe(
      'File created successfully at: /memories/notes.md',
    );
    expect(await tool.run({ command: 'view', path: '/memories/notes.md' })).toBe(
      "Here's the content of /memories/notes.md with line numbers:\n     1\tHello",
    );
    expect(await tool.run(tool.parse({ command: 'view', path: '/memories' }))).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n5B\t/memories\n5B\t/memories/notes.md",
    );
  });

  it('surfaces a failed command as a thrown error whose message is the text for the model', async () => {
    const tool = betaMemoryTool(createInMemoryStore());
    await expect(tool.run({ command: 'delete', path: '/memories' })).rejects.toThrow(
      'Cannot delete the /memories directory itself',
    );
  });
});
