import { BetaLocalFilesystemMemoryTool } from '@anthropic-ai/sdk/tools/memory/node';
import type { MemoryCommand, MemoryStore } from '@memdir/core';

/** Which side of the comparison. */
export type ContenderName = 'memdir' | 'reference';

/** One of the two tools under test, over its own folder. */
export interface Contender {
  readonly name: ContenderName;
  /** The folder the tool was given; its files live in `{base}/memories`. */
  readonly base: string;
  /** Runs one tool input; resolves to the result text, rejects with the tool's error. */
  run(command: MemoryCommand): Promise<string>;
  close(): Promise<void>;
}

/** Makes the memdir store under test over `root` (the bench uses `createFsStore({ root })`). */
export type MemdirStoreFactory = (root: string) => MemoryStore;

/** memdir's store, called through its typed methods as the Anthropic tool runner would. */
export function memdirContender(base: string, createStore: MemdirStoreFactory): Contender {
  const store = createStore(base);
  return {
    name: 'memdir',
    base,
    run: (command) => store[command.command](command as never),
    close: () => store.close(),
  };
}

/**
 * Anthropic's `BetaLocalFilesystemMemoryTool` (`@anthropic-ai/sdk` 1.17.0; its memory tool is unchanged since 1.14) over `base`: it keeps its
 * files in `{base}/memories`, the same layout as memdir's filesystem store.
 */
export async function referenceContender(base: string): Promise<Contender> {
  const tool = await BetaLocalFilesystemMemoryTool.init(base);
  return {
    name: 'reference',
    base,
    run: (command) =>
      (tool[command.command] as (command: MemoryCommand) => Promise<string>).call(tool, command),
    close: async () => {},
  };
}

/** Runs `command`, turning a rejection into the text the model would read (`Error: ...`). */
export async function resultText(contender: Contender, command: MemoryCommand): Promise<string> {
  try {
    return await contender.run(command);
  } catch (error) {
    return `Error: ${error instanceof Error ? error.message : String(error)}`;
  }
}
