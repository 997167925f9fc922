// What each page of the inspector is given, and how it refuses.
import type { MemdirStore, MemoryAdmin } from '@memdir/core';
import type { TokenGrant, TokenTable } from '../auth.js';
import type { Viewer } from './layout.js';

/** The options of `mountInspector`. */
export interface InspectorOptions {
  /** The tokens accepted now (the server's own table): sign-in checks a pasted token against it. */
  tokens: () => TokenTable;
  /** The store of one namespace (history on, to show versions); opened once, kept by the caller. */
  store: (namespace: string) => Promise<MemdirStore>;
  /** The backend's admin, for namespaces and their usage. @default none: usage is not shown */
  admin?: MemoryAdmin | undefined;
}

/** What a page is given. */
export interface PageContext {
  readonly url: URL;
  readonly grant: TokenGrant;
  readonly viewer: Viewer;
  readonly options: InspectorOptions;
  /** The store of the namespace the request names (`ns`), once the grant may see it. */
  store(): Promise<{ namespace: string; store: MemdirStore }>;
}

/** A page's answer to a refused or failed request, with a sentence and nothing of the server. */
export class PageError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
