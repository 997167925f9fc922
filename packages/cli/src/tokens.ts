// The tokens file of `memdir serve --http`: which bearer tokens may use the server, and the
// namespace and mode each one gets. Only a SHA-256 hash of each token is stored: a token is 32
// random bytes, so a fast hash is as safe as a slow one (there is nothing to guess), and a leaked
// file gives nobody access. The namespace comes from here, never from the client.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { open, readFile, rm, stat } from 'node:fs/promises';
import { validateNamespace } from '@memdir/core';
import { writeFileAtomically } from './atomic-file.js';

/** What a token may do: `read-only` tokens get a tool error for every change. */
export type TokenMode = 'read-write' | 'read-only';

/** One token as the file holds it. */
export interface TokenEntry {
  /** Who holds it: shown in the access log and recorded as the author of every change. */
  readonly name: string;
  /** The namespace of the store every call with this token works in. */
  readonly namespace: string;
  readonly mode: TokenMode;
  /** The SHA-256 of the token, in hex. */
  readonly sha256: string;
  /** When it was made (ISO 8601). */
  readonly created: string;
  /**
   * A token of the memory stores API's administration (`memdir token add NAME --stores`): it may
   * create, list and manage every store. Its namespace is {@link STORES_TOKEN_NAMESPACE}.
   */
  readonly stores?: true;
}

/**
 * The namespace of a `--stores` token: one no store uses. Namespaces starting with "=" are memdir's
 * own (the memory stores registry is one): no other token may name them.
 */
export const STORES_TOKEN_NAMESPACE = '=stores';

/** The file's content. */
export interface TokensFile {
  version: 1;
  tokens: TokenEntry[];
}

/** The default tokens file, relative to the working directory (`--tokens` or `MEMDIR_TOKENS` win). */
export const DEFAULT_TOKENS_FILE = './memdir-tokens.json';

/** Every token starts with this, so secret scanners and people can tell one at a glance. */
export const TOKEN_PREFIX = 'memdir_';

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$/;
const HASH_PATTERN = /^[0-9a-f]{64}$/;

/** A token file that cannot be read or does not hold what it should. */
export class TokensFileError extends Error {
  override readonly name = 'TokensFileError';
}

/** Checks a token name: 1 to 64 of `A-Z a-z 0-9 . _ @ + -`, starting with a letter or digit. */
export function validateTokenName(name: string): string {
  if (!NAME_PATTERN.test(name)) {
    throw new TypeError(
      `Invalid token name ${JSON.stringify(name.slice(0, 80))}: use 1 to 64 of A-Z a-z 0-9 . _ @ + -, starting with a letter or digit`,
    );
  }
  return name;
}

/** A new random token: the prefix and 32 random bytes in base64url (50 characters in all). */
export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** The SHA-256 of a token, as the file stores it. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function entryFrom(value: unknown, index: number): TokenEntry {
  const where = `token ${index + 1}`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TokensFileError(`${where} is not an object`);
  }
  const { name, namespace, mode, sha256, created, stores } = value as Record<string, unknown>;
  if (typeof name !== 'string') throw new TokensFileError(`${where} has no name`);
  try {
    validateTokenName(name);
  } catch (error) {
    throw new TokensFileError(`${where}: ${(error as Error).message}`);
  }
  if (typeof namespace !== 'string') throw new TokensFileError(`token ${name} has no namespace`);
  try {
    validateNamespace(namespace);
  } catch (error) {
    throw new TokensFileError(`token ${name}: ${(error as Error).message}`);
  }
  if (stores !== undefined && stores !== true)
    throw new TokensFileError(`token ${name}: stores must be true`);
  if (stores === true ? namespace !== STORES_TOKEN_NAMESPACE : namespace.startsWith('=')) {
    throw new TokensFileError(
      stores === true
        ? `token ${name}: a --stores token has namespace ${STORES_TOKEN_NAMESPACE}`
        : `token ${name}: namespaces starting with "=" are memdir's own`,
    );
  }
  if (mode !== 'read-write' && mode !== 'read-only') {
    throw new TokensFileError(`token ${name}: mode must be "read-write" or "read-only"`);
  }
  if (typeof sha256 !== 'string' || !HASH_PATTERN.test(sha256)) {
    throw new TokensFileError(`token ${name}: sha256 must be 64 lowercase hex digits`);
  }
  const entry: TokenEntry = {
    name,
    namespace,
    mode,
    sha256,
    created: typeof created === 'string' ? created : '',
  };
  return stores === true ? { ...entry, stores } : entry;
}

/** Parses the text of a tokens file, checking every entry. */
export function parseTokensFile(text: string): TokensFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new TokensFileError(`not valid JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || (value as { version?: unknown }).version !== 1) {
    throw new TokensFileError('expected {"version": 1, "tokens": [...]}');
  }
  const tokens = (value as { tokens?: unknown }).tokens;
  if (!Array.isArray(tokens)) throw new TokensFileError('expected {"version": 1, "tokens": [...]}');
  const entries = tokens.map(entryFrom);
  const names = new Set<string>();
  const hashes = new Set<string>();
  for (const entry of entries) {
    if (names.has(entry.name)) throw new TokensFileError(`two tokens are named ${entry.name}`);
    if (hashes.has(entry.sha256)) throw new TokensFileError(`token ${entry.name} repeats another's hash`);
    names.add(entry.name);
    hashes.add(entry.sha256);
  }
  return { version: 1, tokens: entries };
}

/** Reads and checks a tokens file; `undefined` when there is no file. */
export async function readTokensFile(path: string): Promise<TokensFile | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new TokensFileError(`cannot read it: ${(error as Error).message}`);
  }
  return parseTokensFile(text);
}

/**
 * Changes the tokens file under a lock, so two `memdir token add` at once both land: `change`
 * gets the current content (an empty list when there is no file) and returns the new one, which
 * replaces the file in one rename (a server reloading it on SIGHUP reads the old or the new file,
 * never half of one). The file is readable by its owner only.
 */
export async function updateTokensFile(
  path: string,
  change: (file: TokensFile) => TokensFile,
): Promise<TokensFile> {
  const release = await lock(`${path}.lock`);
  try {
    const current = (await readTokensFile(path)) ?? { version: 1, tokens: [] };
    const next = change(current);
    await writeFileAtomically(path, `${JSON.stringify(next, null, 2)}\n`, 0o600);
    return next;
  } finally {
    await release();
  }
}

const LOCK_WAIT_MS = 5000;
/** A lock older than this was left by a process that died while holding it. */
const STALE_LOCK_MS = 30_000;

async function lock(path: string): Promise<() => Promise<void>> {
  const started = Date.now();
  for (;;) {
    try {
      const handle = await open(path, 'wx', 0o600);
      await handle.close();
      return () => rm(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const held = await stat(path).then(
      (info) => Date.now() - info.mtimeMs,
      () => 0,
    );
    if (held > STALE_LOCK_MS) {
      await rm(path, { force: true });
      continue;
    }
    if (Date.now() - started > LOCK_WAIT_MS) {
      throw new TokensFileError(`another memdir holds ${path}; remove it if no memdir is running`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The tokens a server accepts, looked up in constant time: the presented token is hashed, and the
 * hash is compared with every entry's (all of them, whatever matches), so neither the time taken
 * nor the order of the file tells anything about a token.
 */
export class TokenTable {
  readonly entries: readonly TokenEntry[];
  readonly #hashes: Buffer[];

  constructor(file: TokensFile) {
    this.entries = file.tokens;
    this.#hashes = file.tokens.map((entry) => Buffer.from(entry.sha256, 'hex'));
  }

  /** The entry of `token`, or `undefined`. */
  find(token: string): TokenEntry | undefined {
    const presented = createHash('sha256').update(token, 'utf8').digest();
    let found: TokenEntry | undefined;
    for (let index = 0; index < this.#hashes.length; index++) {
      if (timingSafeEqual(presented, this.#hashes[index]!) && found === undefined) {
        found = this.entries[index];
      }
    }
    return found;
  }

  /** The entry with the same name, namespace, mode and hash as `entry`, if this table has one. */
  same(entry: Pick<TokenEntry, 'name' | 'sha256' | 'namespace' | 'mode'>): TokenEntry | undefined {
    return this.entries.find(
      (other) =>
        other.name === entry.name &&
        other.sha256 === entry.sha256 &&
        other.namespace === entry.namespace &&
        other.mode === entry.mode,
    );
  }
}
