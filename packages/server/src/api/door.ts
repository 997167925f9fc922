// The memory stores API as a door of `createMemdirServer` (`mountMemoryStores(server, backend)`):
// Anthropic's `/v1/memory_stores` wire (API.md), routed by Hono, after the server's shared steps
// (Host/Origin, the token, the access log). Each request is charged one call against the token's
// limits, gets a `request-id`, and is answered in JSON; every refusal in the hosted API's error shape.
import type { Actor } from '@memdir/core';
import { type Context, Hono } from 'hono';
import type { Door, DoorContext, MemdirServer } from '../app.js';
import type { ApiContext, MemoryStoresBackend } from './context.js';
import { ApiError, errorResponse, notFound, toApiError } from './errors.js';
import { isStoreId, newRequestId } from './ids.js';
import { createMemory, deleteMemory, listMemories, retrieveMemory, updateMemory } from './memories.js';
import { REGISTRY_NAMESPACE, Registry } from './registry.js';
import {
  archiveStore,
  createStore,
  deleteStore,
  finishDeletion,
  listStores,
  retrieveStore,
  updateStore,
} from './stores.js';
import { listVersions, redactVersion, restoreVersion, retrieveVersion } from './versions.js';
import { readBody } from './wire.js';

/** Where the API is mounted. */
export const MEMORY_STORES_PATH = '/v1/memory_stores';
/** The header a client sets (through `defaultHeaders`) to have its changes recorded as a session's. */
export const SESSION_HEADER = 'memdir-session-id';

const STORE_FIELDS = ['name', 'description', 'metadata'] as const;
const MEMORY_FIELDS = ['path', 'content'] as const;
const UPDATE_FIELDS = ['path', 'content', 'precondition'] as const;

type Env = { Bindings: ApiContext };

function actorOf(request: Request, context: DoorContext): Actor {
  const session = request.headers.get(SESSION_HEADER);
  if (session !== null && session !== '') {
    if (session.length > 256 || /[\u0000-\u001f\u007f]/.test(session)) {
      throw new ApiError(
        400,
        'invalid_request_error',
        `${SESSION_HEADER} must be 1 to 256 printable characters.`,
      );
    }
    return { type: 'session', id: session };
  }
  return { type: 'api', id: context.grant.name };
}

function routes(): Hono<Env> {
  const app = new Hono<Env>().basePath(MEMORY_STORES_PATH);
  const answer =
    (work: (c: Context<Env>, api: ApiContext, query: URLSearchParams) => Promise<unknown>) =>
    async (c: Context<Env>) => {
      const api = c.env;
      const body = await work(c, api, new URL(c.req.url).searchParams);
      // As bytes: a runtime sends the same bytes and length either way (@hono/node-server included),
      // but a web-standard reader of a string body encodes it again (a listing of 100: ~40 KB).
      return new Response(Buffer.from(JSON.stringify(body), 'utf8'), {
        status: 200,
        headers: { 'content-type': 'application/json', 'request-id': api.requestId },
      });
    };
  const id = (c: Context<Env>, name: string) => c.req.param(name) ?? '';

  app.post(
    '/',
    answer(async (c, api) => createStore(api, await readBody(c.req.raw, STORE_FIELDS))),
  );
  app.get(
    '/',
    answer((_c, api, query) => listStores(api, query)),
  );
  app.get(
    '/:store',
    answer((c, api) => retrieveStore(api, id(c, 'store'))),
  );
  app.post(
    '/:store',
    answer(async (c, api) => updateStore(api, id(c, 'store'), await readBody(c.req.raw, STORE_FIELDS))),
  );
  app.delete(
    '/:store',
    answer((c, api) => deleteStore(api, id(c, 'store'))),
  );
  app.post(
    '/:store/archive',
    answer((c, api) => archiveStore(api, id(c, 'store'))),
  );

  app.post(
    '/:store/memories',
    answer(async (c, api, query) =>
      createMemory(api, id(c, 'store'), await readBody(c.req.raw, MEMORY_FIELDS), query),
    ),
  );
  app.get(
    '/:store/memories',
    answer((c, api, query) => listMemories(api, id(c, 'store'), query)),
  );
  app.get(
    '/:store/memories/:memory',
    answer((c, api, query) => retrieveMemory(api, id(c, 'store'), id(c, 'memory'), query)),
  );
  app.post(
    '/:store/memories/:memory',
    answer(async (c, api, query) =>
      updateMemory(api, id(c, 'store'), id(c, 'memory'), await readBody(c.req.raw, UPDATE_FIELDS), query),
    ),
  );
  app.delete(
    '/:store/memories/:memory',
    answer((c, api, query) => deleteMemory(api, id(c, 'store'), id(c, 'memory'), query)),
  );

  app.get(
    '/:store/memory_versions',
    answer((c, api, query) => listVersions(api, id(c, 'store'), query)),
  );
  app.get(
    '/:store/memory_versions/:version',
    answer((c, api, query) => retrieveVersion(api, id(c, 'store'), id(c, 'version'), query)),
  );
  app.post(
    '/:store/memory_versions/:version/redact',
    answer((c, api) => redactVersion(api, id(c, 'store'), id(c, 'version'))),
  );

  app.post(
    '/:store/memory_versions/:version/memdir_restore',
    answer(async (c, api) =>
      restoreVersion(api, id(c, 'store'), id(c, 'version'), await readBody(c.req.raw, ['precondition'])),
    ),
  );

  app.notFound((c) => errorResponse(notFound('No such endpoint of the memory stores API.'), c.env.requestId));
  app.onError((error, c) => errorResponse(toApiError(error), c.env.requestId));
  return app;
}

/** The API as a door, on `backend`. Mount it with {@link mountMemoryStores}. */
export function memoryStoresDoor(backend: MemoryStoresBackend): Door {
  const app = routes();
  const registry = new Registry(() => backend.open(REGISTRY_NAMESPACE));
  let resumed = false;
  // Deletions a stopped server left half done are finished by the first request after a start.
  const resume = async () => {
    let cursor: string | undefined;
    do {
      const page = await registry.list(cursor, 100);
      for (const entry of page.entries) {
        if (entry.deleting === true) await finishDeletion({ registry, backend }, entry.id);
      }
      cursor = page.next ?? undefined;
    } while (cursor !== undefined);
  };
  return async (request, context) => {
    const requestId = newRequestId();
    context.record.door = MEMORY_STORES_PATH;
    const release = context.charge(1);
    // Refused in the API's shape by `memoryStoresRefusal`, the door's refusal when mounted.
    if (release instanceof Response) return release;
    try {
      if (!resumed) {
        resumed = true;
        void resume().catch(() => {
          resumed = false;
        });
      }
      let actor: Actor;
      try {
        actor = actorOf(request, context);
      } catch (error) {
        return errorResponse(toApiError(error), requestId);
      }
      const api: ApiContext = { grant: context.grant, requestId, actor, registry, backend };
      const response = await app.fetch(request, api);
      if (response.status >= 400) context.record.refusal = `api-${response.status}`;
      return response;
    } finally {
      release();
    }
  };
}

/** The API's refusal of a request the server's shared steps turned away (401, 429, 503). */
export function memoryStoresRefusal(
  status: number,
  message: string,
  headers: Record<string, string>,
): Response {
  const type =
    status === 401 ? 'authentication_error' : status === 429 ? 'rate_limit_error' : 'overloaded_error';
  return errorResponse(
    new ApiError(status, type, status === 401 ? 'The token is missing, wrong or revoked.' : message, {
      retry: status !== 401,
      headers,
    }),
    newRequestId(),
  );
}

/** What the API tells the other doors about the stores. */
export interface MountedMemoryStores {
  /**
   * Whether `namespace` is an archived memory store (one registry read; none for a namespace that
   * is not a store id): the memory tool's door makes such a store read-only.
   */
  archived(namespace: string): Promise<boolean>;
}

/** Mounts the memory stores API on `server` at `/v1/memory_stores`. */
export function mountMemoryStores(server: MemdirServer, backend: MemoryStoresBackend): MountedMemoryStores {
  const door = memoryStoresDoor(backend);
  server.door(MEMORY_STORES_PATH, door, { refusal: memoryStoresRefusal });
  server.door(`${MEMORY_STORES_PATH}/*`, door, { refusal: memoryStoresRefusal });
  const registry = new Registry(() => backend.open(REGISTRY_NAMESPACE));
  return {
    async archived(namespace) {
      if (!isStoreId(namespace)) return false;
      const entry = await registry.get(namespace);
      return entry !== null && entry.archived_at !== null;
    },
  };
}
