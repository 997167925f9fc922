// The inspector as a door of `createMemdirServer` at `/ui`: sign-in, then server-rendered pages
// reached by ordinary links (no script at all). A namespace token sees its namespace; a `--stores`
// token sees every namespace of the backend. Read-only tokens get no change control, and the door
// refuses their changes anyway. Every string from the store is escaped (html.ts).
import { isMemoryToolError, validateNamespace } from '@memdir/core';
import type { Door, DoorContext, DoorOptions, MemdirServer } from '../app.js';
import { presentedToken } from '../auth.js';
import { STYLE, STYLE_PATH } from './assets.js';
import { changePage, changeRequest } from './changes.js';
import { type InspectorOptions, type PageContext, PageError } from './context.js';
import { readForm } from './form.js';
import { html } from './html.js';
import { href, page, securityHeaders, seeOther, type Viewer } from './layout.js';
import { readPage } from './pages.js';
import {
  cookieToken,
  csrfHolds,
  csrfToken,
  sameOrigin,
  signInCookie,
  signOutCookie,
  UI_PATH,
  wellFormedToken,
} from './session.js';

function stylesheet(): Response {
  return new Response(STYLE, { headers: securityHeaders('text/css; charset=utf-8') });
}

function signInPage(message?: string, status = 200): Response {
  const body = html`<h1>Sign in</h1>
<p>Paste one of this server's tokens (from <code>memdir token add</code>). It is kept in a cookie only this inspector reads, until you sign out or close the browser.</p>
${message === undefined ? '' : html`<p class="error" role="alert">${message}</p>`}
<form method="post" action="${href('sign-in')}">
<label for="token">Token</label>
<input id="token" name="token" type="password" autocomplete="off" required autofocus>
<button type="submit">Sign in</button>
</form>`;
  return page('Sign in', body, undefined, status);
}

/** Sign-in with a pasted token: checked against the token table, then kept in the session cookie. */
async function signIn(request: Request, options: InspectorOptions): Promise<Response> {
  // A page of another site must not sign the browser in with a token of its choosing.
  if (!sameOrigin(request)) return signInPage('This sign-in came from another site: nothing was done.', 403);
  const form = await readForm(request);
  const token = form?.get('token')?.trim() ?? '';
  if (!wellFormedToken(token) || options.tokens().find(token) === undefined) {
    return signInPage('That token is not one this server accepts.', 401);
  }
  return seeOther(href(''), { 'set-cookie': signInCookie(request, token) });
}

function routeOf(url: URL): string {
  return url.pathname === UI_PATH ? '' : url.pathname.slice(UI_PATH.length + 1);
}

/** The answer to a request without a valid token. */
async function anonymous(request: Request, options: InspectorOptions): Promise<Response> {
  const route = routeOf(new URL(request.url));
  if (request.method === 'GET' && `${UI_PATH}/${route}` === STYLE_PATH) return stylesheet();
  if (route === 'sign-in' && request.method === 'POST') return signIn(request, options);
  if (route === 'sign-in' && request.method === 'GET') return signInPage();
  if (request.method === 'GET' || request.method === 'HEAD') return seeOther(href('sign-in'));
  return signInPage('Sign in first: nothing was done.', 401);
}

function errorPage(error: unknown, viewer: Viewer): Response {
  if (error instanceof PageError) {
    return page(
      'Cannot show this',
      html`<h1>Cannot show this</h1><p class="error">${error.message}</p>`,
      viewer,
      error.status,
    );
  }
  if (isMemoryToolError(error) && error.code !== 'BACKEND') {
    const status =
      error.code === 'NOT_FOUND'
        ? 404
        : error.code === 'UNSUPPORTED'
          ? 501
          : error.code === 'CONFLICT'
            ? 409
            : 400;
    return page(
      'Cannot show this',
      html`<h1>Cannot show this</h1><p class="error">${error.message}</p>`,
      viewer,
      status,
    );
  }
  // Nothing of the backend (host, credentials, stack) reaches the page.
  const body = html`<h1>The store did not answer</h1><p class="error">Try again in a moment.</p>`;
  return page('The store did not answer', body, viewer, 503);
}

/** The answer to a signed-in request. */
async function signedIn(
  request: Request,
  context: DoorContext,
  options: InspectorOptions,
): Promise<Response> {
  const url = new URL(request.url);
  const route = routeOf(url);
  if (request.method === 'GET' && `${UI_PATH}/${route}` === STYLE_PATH) return stylesheet();
  if (route === 'sign-in') return request.method === 'POST' ? signIn(request, options) : seeOther(href(''));
  const token = presentedToken(request.headers) ?? cookieToken(request) ?? '';
  const { grant } = context;
  const viewer: Viewer = {
    name: grant.name,
    namespace: grant.namespace,
    mode: grant.mode,
    stores: grant.stores === true,
    csrf: csrfToken(token),
  };
  const pageContext: PageContext = {
    url,
    grant,
    viewer,
    options,
    async store() {
      const namespace = url.searchParams.get('ns') ?? grant.namespace;
      if (namespace !== grant.namespace && grant.stores !== true) {
        throw new PageError(404, 'There is no such namespace, or this token may not see it.');
      }
      try {
        validateNamespace(namespace);
      } catch {
        throw new PageError(404, 'There is no such namespace.');
      }
      const store = await options.store(namespace);
      return { namespace, store };
    },
  };
  const release = context.charge(1);
  if (release instanceof Response) return release;
  try {
    if (request.method === 'POST') {
      const form = await readForm(request);
      if (form === undefined) throw new PageError(400, 'The form could not be read: nothing was done.');
      // A change needs the page's CSRF token and, when the browser names one, this server's origin.
      if (!sameOrigin(request) || !csrfHolds(token, form.get('csrf'))) {
        context.record.refusal = 'csrf';
        throw new PageError(403, 'This change did not come from this inspector: nothing was done.');
      }
      if (route === 'sign-out') return seeOther(href('sign-in'), { 'set-cookie': signOutCookie(request) });
      if (grant.mode !== 'read-write') {
        context.record.refusal = 'read-only';
        throw new PageError(403, 'This token may only read: nothing was changed.');
      }
      return await changeRequest(route, form, pageContext);
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      throw new PageError(405, 'The inspector answers only GET and POST.');
    }
    return (await changePage(route, pageContext)) ?? (await readPage(route, pageContext));
  } catch (error) {
    return errorPage(error, viewer);
  } finally {
    release();
  }
}

/** The path the inspector is mounted at (every path beneath `/ui`). */
export const INSPECTOR_PATH = `${UI_PATH}/*`;

/** The inspector's door and how it authenticates (`server.door(INSPECTOR_PATH, door, options)`). */
export function inspectorDoor(options: InspectorOptions): { door: Door; options: DoorOptions } {
  return {
    door: (request, context) => signedIn(request, context, options),
    options: {
      token: cookieToken,
      anonymous: (request) => anonymous(request, options),
      sameOrigin: true,
    },
  };
}

/** Mounts the inspector at `/ui` on `server`. */
export function mountInspector(server: MemdirServer, options: InspectorOptions): void {
  const inspector = inspectorDoor(options);
  server.door(INSPECTOR_PATH, inspector.door, inspector.options);
}
