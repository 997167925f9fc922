// The MCP sessions of `memdir serve --http`. Each session is one MCP `Server` and its transport,
// bound to the token that opened it: a request that names the session with another token (or with
// a token that was revoked or changed since) is told the session does not exist, so a session id
// that leaks gives nothing. Sessions left idle expire; each token, and the server, holds a bounded
// number of them.
import { isMemoryToolError, type MemoryStore } from '@memdir/core';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { TokenEntry, TokenTable } from './tokens.js';

/** One MCP session. */
export interface Session {
  readonly id: string;
  /** The token that opened it (replaced by the same entry of a reloaded file). */
  token: TokenEntry;
  readonly server: Server;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  /** The tool calls being answered, by request id: each reports its outcome for the access log. */
  readonly calls: Map<string, (outcome: string) => void>;
  /** When a request last started or ended (milliseconds). */
  lastActive: number;
  /** Requests being answered. */
  inFlight: number;
}

/** Limits of {@link SessionTable}. */
export interface SessionLimits {
  /** A session with no request for this long is closed (milliseconds). */
  idleMs: number;
  /** Sessions one token may hold; opening one more closes its least recently used idle one. */
  perToken: number;
  /** Sessions in all. */
  total: number;
}

export class SessionTable {
  readonly #sessions = new Map<string, Session>();
  readonly #limits: SessionLimits;
  readonly #onClose: (session: Session, why: string) => void;
  readonly #sweeper: NodeJS.Timeout;

  constructor(limits: SessionLimits, onClose: (session: Session, why: string) => void) {
    this.#limits = limits;
    this.#onClose = onClose;
    const every = Math.min(60_000, Math.max(100, Math.floor(limits.idleMs / 4)));
    this.#sweeper = setInterval(() => this.#expire(Date.now()), every);
    this.#sweeper.unref();
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** The session `id` names, when it exists and belongs to `token`. */
  find(id: string, token: TokenEntry): Session | undefined {
    const session = this.#sessions.get(id);
    return session?.token === token ? session : undefined;
  }

  /**
   * Makes room for one more session of `token`, closing the least recently used idle session of
   * the token (or of anyone, at the overall cap). False when every candidate is busy.
   */
  makeRoom(token: TokenEntry): boolean {
    const own = [...this.#sessions.values()].filter((session) => session.token.name === token.name);
    if (own.length >= this.#limits.perToken && !this.#evictFrom(own)) return false;
    if (this.#sessions.size >= this.#limits.total && !this.#evictFrom([...this.#sessions.values()])) {
      return false;
    }
    return true;
  }

  add(session: Session): void {
    this.#sessions.set(session.id, session);
  }

  /** Forgets a session that ended on its own (the client's DELETE, or its transport closed). */
  remove(id: string): void {
    this.#sessions.delete(id);
  }

  /**
   * After the tokens file was reloaded: a session whose token is still there, unchanged, carries on
   * (bound to the new entry); any other is closed.
   */
  rebind(table: TokenTable): number {
    let closed = 0;
    for (const session of [...this.#sessions.values()]) {
      const same = table.same(session.token);
      if (same) {
        session.token = same;
      } else {
        this.close(session, 'token revoked or changed');
        closed++;
      }
    }
    return closed;
  }

  close(session: Session, why: string): void {
    if (!this.#sessions.delete(session.id)) return;
    this.#onClose(session, why);
  }

  /** Closes every session and stops the idle sweep. */
  closeAll(why: string): void {
    clearInterval(this.#sweeper);
    for (const session of [...this.#sessions.values()]) this.close(session, why);
  }

  #evictFrom(candidates: Session[]): boolean {
    let oldest: Session | undefined;
    for (const session of candidates) {
      if (session.inFlight > 0) continue;
      if (oldest === undefined || session.lastActive < oldest.lastActive) oldest = session;
    }
    if (oldest === undefined) return false;
    this.close(oldest, 'too many sessions');
    return true;
  }

  #expire(now: number): void {
    for (const session of [...this.#sessions.values()]) {
      if (session.inFlight === 0 && now - session.lastActive >= this.#limits.idleMs) {
        this.close(session, 'idle');
      }
    }
  }
}

/**
 * A store for one session: every call of the session runs in its own queue (so two sessions of
 * one namespace run side by side, while one session's calls keep the model's order), and the
 * outcome of each call is reported under its tool use id, for the access log.
 */
export function sessionStore(store: MemoryStore, calls: Session['calls']): MemoryStore {
  const execute: MemoryStore['execute'] = async (input, options) => {
    const report = options?.toolUseId === undefined ? undefined : calls.get(options.toolUseId);
    try {
      const result = await store.execute(input, options);
      report?.('ok');
      return result;
    } catch (error) {
      report?.(isMemoryToolError(error) ? error.code : 'BACKEND');
      throw error;
    }
  };
  return {
    view: (command) => execute(command),
    create: (command) => execute(command),
    str_replace: (command) => execute(command),
    insert: (command) => execute(command),
    delete: (command) => execute(command),
    rename: (command) => execute(command),
    execute,
    close: async () => {},
    capabilities: store.capabilities,
  };
}
