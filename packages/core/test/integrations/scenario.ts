// One assistant turn with several memory calls, shared by the tests of every integration: the model
// creates a file and edits it in the same turn (which only works when the calls run in the model's
// order), makes one failing call, and lists the directory. Every integration must send back exactly
// these tool_result blocks.
import { asDriverPath } from '../../src/driver/index.js';
import {
  createInMemoryDriver,
  createMemoryStore,
  type MemoryDriver,
  type MemoryStore,
  type StrReplaceCommand,
  type ViewCommand,
} from '../../src/index.js';
import { type AssistantBlock, memoryCall } from './scripted-messages-server.js';

export const NOTES = '/memories/notes.md';

/** The calls of the turn, in the model's order. */
export const turn: AssistantBlock[] = [
  { type: 'text', text: 'I will remember that.' },
  memoryCall('toolu_01', { command: 'create', path: NOTES, file_text: '# Notes\n- likes tea\n' }),
  memoryCall('toolu_02', { command: 'str_replace', path: NOTES, old_str: 'tea', new_str: 'green tea' }),
  memoryCall('toolu_03', { command: 'str_replace', path: NOTES, old_str: 'coffee', new_str: 'tea' }),
  memoryCall('toolu_04', { command: 'view', path: '/memories' }),
];

/** The final turn, which ends the agent loop. */
export const finalTurn: AssistantBlock[] = [{ type: 'text', text: 'Saved to memory.' }];

/** The exact tool_result blocks the client must send back for {@link turn}. */
export const expectedResults = [
  {
    type: 'tool_result',
    tool_use_id: 'toolu_01',
    content: 'File created successfully at: /memories/notes.md',
  },
  {
    type: 'tool_result',
    tool_use_id: 'toolu_02',
    content:
      'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n' +
      '     1\t# Notes\n     2\t- likes green tea\n     3\t',
  },
  {
    type: 'tool_result',
    tool_use_id: 'toolu_03',
    content:
      'Error: No replacement was performed, old_str `coffee` did not appear verbatim in /memories/notes.md.',
    is_error: true,
  },
  {
    type: 'tool_result',
    tool_use_id: 'toolu_04',
    content:
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n" +
      '26B\t/memories\n26B\t/memories/notes.md',
  },
];

/** The files the store must hold afterwards (driver paths). */
export const expectedFiles = [{ path: 'notes.md', content: '# Notes\n- likes green tea\n' }];

/** Every file a driver holds, sorted by path. */
export async function filesOf(driver: MemoryDriver): Promise<Array<{ path: string; content: string }>> {
  const files: Array<{ path: string; content: string }> = [];
  for await (const entry of driver.list(asDriverPath(''))) {
    const file = await driver.read(entry.path);
    if (file?.kind === 'file') files.push({ path: entry.path, content: file.content });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/**
 * An in-memory store whose `create` takes `delayMs` longer than the other commands, so an integration
 * that ran one turn's calls concurrently would let the `str_replace` overtake the `create` (the
 * control test with the SDK's own `betaMemoryTool` shows it does).
 */
export function slowCreateStore(delayMs = 40): { store: MemoryStore; driver: MemoryDriver } {
  const driver = createInMemoryDriver();
  const inner = createMemoryStore(driver);
  const pause = () => new Promise<void>((resolve) => setTimeout(resolve, delayMs));
  const isCreate = (input: unknown) =>
    typeof input === 'object' && input !== null && (input as { command?: unknown }).command === 'create';
  const store: MemoryStore = {
    view: (command: ViewCommand) => inner.view(command),
    async create(command) {
      await pause();
      return inner.create(command);
    },
    str_replace: (command: StrReplaceCommand) => inner.str_replace(command),
    insert: (command) => inner.insert(command),
    delete: (command) => inner.delete(command),
    rename: (command) => inner.rename(command),
    async execute(input) {
      if (isCreate(input)) await pause();
      return inner.execute(input);
    },
    close: () => inner.close(),
  };
  return { store, driver };
}

/**
 * A custom store that fails the way a careless one might: with a raw Node error that names a host path
 * and carries a stack trace. None of it may reach the model.
 */
export function leakyStore(): MemoryStore {
  const fail = async (): Promise<string> => {
    const error = new Error("EACCES: permission denied, open '/home/alice/secret-project/memories/notes.md'");
    Object.assign(error, { code: 'EACCES', path: '/home/alice/secret-project/memories/notes.md' });
    throw error;
  };
  return {
    view: fail,
    create: fail,
    str_replace: fail,
    insert: fail,
    delete: fail,
    rename: fail,
    execute: fail,
    close: async () => {},
  };
}

export const BACKEND_TEXT =
  'Error: The memory store is unavailable: the storage backend failed unexpectedly. Try again.';
