// The memory tool as its user sees it: the six commands Claude sends, who makes a change and what a
// call may carry, and `MemoryStore`, the object that answers them. What a store is built on is
// elsewhere: its options in `store-options.ts`, the driver contract in `driver/contract.ts`.
import type { DriverCapabilities } from './driver/capabilities.js';

/**
 * The six commands of the memory tool, as Claude sends them (SPEC section 1). The shapes match the
 * Anthropic SDK's `BetaMemoryTool20250818*Command` types, so a {@link MemoryStore} can be handed to
 * `betaMemoryTool()` as its handlers. Optional fields may also be `null`, which counts as omitted.
 */
export interface ViewCommand {
  command: 'view';
  path: string;
  /** `[start, end]`, 1-based and inclusive; `end = -1` reads to the end of the file. */
  view_range?: number[] | null;
}

export interface CreateCommand {
  command: 'create';
  path: string;
  file_text: string;
}

export interface StrReplaceCommand {
  command: 'str_replace';
  path: string;
  old_str: string;
  /** Omitted or `null` deletes `old_str`. */
  new_str?: string | null;
}

export interface InsertCommand {
  command: 'insert';
  path: string;
  /** Insert after this line; `0` inserts at the top. */
  insert_line: number;
  insert_text: string;
}

export interface DeleteCommand {
  command: 'delete';
  path: string;
}

export interface RenameCommand {
  command: 'rename';
  old_path: string;
  new_path: string;
}

/** Any one tool input of the memory tool. */
export type MemoryCommand =
  | ViewCommand
  | CreateCommand
  | StrReplaceCommand
  | InsertCommand
  | DeleteCommand
  | RenameCommand;

/** The name of a memory command. */
export type MemoryCommandName = MemoryCommand['command'];

/** The command names, in the order the tool documents them. */
export const MEMORY_COMMANDS: readonly MemoryCommandName[] = [
  'view',
  'create',
  'str_replace',
  'insert',
  'delete',
  'rename',
];

/**
 * Who made a change, in the shape of Anthropic's hosted memory stores: a session (an agent run), a
 * user, an API key, or a service account (memdir's own sweeps are `{ type: 'service', id: 'memdir' }`).
 * The application decides; the model never does.
 */
export interface Actor {
  readonly type: 'session' | 'user' | 'api' | 'service';
  /** At most 256 characters. */
  readonly id: string;
}

/** What the application may tell the store about one call, beside the model's input. */
export interface MemoryCallOptions {
  /**
   * Who is making this call: recorded with every version the call writes (history). Overrides the
   * store's {@link MemoryStoreOptions.actor}.
   * @default the store's actor
   */
  actor?: Actor | undefined;
  /**
   * The id of the tool call (the Anthropic `tool_use` id, the AI SDK's `toolCallId`, an MCP request
   * id), recorded with every version the call writes. At most 256 characters.
   * @default undefined
   */
  toolUseId?: string | undefined;
}

/**
 * A memory store: the six commands of the memory tool over some storage. Each method resolves to the
 * text Claude reads, or rejects with a `MemoryToolError` whose message is the text Claude reads.
 * Every method checks its input as untrusted (it may come straight from the model).
 *
 * A store made by `createMemoryStore` (every memdir adapter's is one) is a `MemdirStore`: it also has
 * its history, and its `driver` property is the driver it works on; `storeDriver(store)` reads that
 * from any store, and gives undefined for one written by hand.
 */
export interface MemoryStore {
  view(command: ViewCommand, options?: MemoryCallOptions): Promise<string>;
  create(command: CreateCommand, options?: MemoryCallOptions): Promise<string>;
  str_replace(command: StrReplaceCommand, options?: MemoryCallOptions): Promise<string>;
  insert(command: InsertCommand, options?: MemoryCallOptions): Promise<string>;
  delete(command: DeleteCommand, options?: MemoryCallOptions): Promise<string>;
  rename(command: RenameCommand, options?: MemoryCallOptions): Promise<string>;
  /** Checks a raw tool input (untrusted, any shape) and runs it. */
  execute(input: unknown, options?: MemoryCallOptions): Promise<string>;
  /**
   * Releases what the store made itself (connections, handles); never a client or driver the
   * application passed in. Idempotent. The store must not be used afterwards.
   */
  close(): Promise<void>;
  /**
   * What the store's backend can do, when the store knows (stores made by `createMemoryStore` give
   * their driver's). The conformance suite reads it to adapt the few tests that depend on it.
   */
  readonly capabilities?: DriverCapabilities | undefined;
}
