// Sign-in for browsers. The person pastes one of the server's tokens; the inspector keeps it in a
// cookie the page's scripts cannot read (`HttpOnly`), that no other site's request carries
// (`SameSite=Strict`), sent only to the inspector's paths. Each request is authenticated with it
// against the same token table as a bearer header, so revoking the token (and a SIGHUP) ends the
// session at once, in every process. Changes also carry a CSRF token derived from the cookie's, and
// an `Origin`, when there is one, must be the server's own.
import { createHash, timingSafeEqual } from 'node:crypto';
import { parse, serialize } from 'hono/utils/cookie';

/** The cookie that holds the signed-in token. */
export const SESSION_COOKIE = 'memdir_ui';
/** Where the inspector lives. */
export const UI_PATH = '/ui';

const TOKEN = /^[!-~]{1,256}$/;

/** The token of the session cookie, or `undefined`. */
export function cookieToken(request: Request): string | undefined {
  const header = request.headers.get('cookie');
  if (header === null) return undefined;
  const value = parse(header, SESSION_COOKIE)[SESSION_COOKIE];
  return value !== undefined && TOKEN.test(value) ? value : undefined;
}

/** Whether the request came over HTTPS (directly, or as a proxy in front says). */
function secure(request: Request): boolean {
  return new URL(request.url).protocol === 'https:' || request.headers.get('x-forwarded-proto') === 'https';
}

/** The `Set-Cookie` that signs `token` in (for the browser's session only: no expiry). */
export function signInCookie(request: Request, token: string): string {
  return serialize(SESSION_COOKIE, token, {
    path: UI_PATH,
    httpOnly: true,
    sameSite: 'Strict',
    secure: secure(request),
  });
}

/** The `Set-Cookie` that signs out. */
export function signOutCookie(request: Request): string {
  return serialize(SESSION_COOKIE, '', {
    path: UI_PATH,
    httpOnly: true,
    sameSite: 'Strict',
    secure: secure(request),
    maxAge: 0,
  });
}

/** Whether a well-formed token was pasted. */
export function wellFormedToken(token: string): boolean {
  return TOKEN.test(token);
}

/**
 * The CSRF token of the session of `token`: a hash of it under a label of its own, which a page of
 * another site cannot know (it can neither read the cookie nor the inspector's pages).
 */
export function csrfToken(token: string): string {
  return createHash('sha256').update(`memdir-ui-csrf\u0000${token}`, 'utf8').digest('hex');
}

/** Whether `presented` is the CSRF token of the session of `token`, compared in constant time. */
export function csrfHolds(token: string, presented: unknown): boolean {
  if (typeof presented !== 'string' || !/^[0-9a-f]{64}$/.test(presented)) return false;
  return timingSafeEqual(Buffer.from(csrfToken(token), 'hex'), Buffer.from(presented, 'hex'));
}

/** Whether the request's `Origin`, when it has one, is the server's own. */
export function sameOrigin(request: Request): boolean {
  const origin = request.headers.get('origin');
  return origin === null || origin === new URL(request.url).origin;
}
