// The frame of every page and the headers of every answer: a strict Content-Security-Policy (no
// inline script or style, nothing from another origin, no framing), `nosniff`, no referrer to another
// origin (`same-origin`, not `no-referrer`: with it Chromium sends `Origin: null` on the inspector's own
// forms, and the origin check needs the real one), no cache.

import { STYLE_PATH } from './assets.js';
import { type Html, html } from './html.js';
import { UI_PATH } from './session.js';

/** The Content-Security-Policy of every page. */
export const CSP =
  "default-src 'self'; script-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** The headers every answer of the inspector carries. */
export function securityHeaders(contentType: string, csp = CSP): Record<string, string> {
  return {
    'content-type': contentType,
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
    'x-frame-options': 'DENY',
    'cache-control': 'no-store',
  };
}

/** A link inside the inspector: `/ui/PAGE?name=value...` (the values encoded, never a scheme). */
export function href(page: string, query: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, value);
  const search = params.toString();
  return `${UI_PATH}${page === '' ? '' : `/${page}`}${search === '' ? '' : `?${search}`}`;
}

/** Who is signed in, for the header (and the sign-out form's CSRF token). */
export interface Viewer {
  readonly name: string;
  readonly namespace: string;
  readonly mode: 'read-write' | 'read-only';
  readonly stores: boolean;
  readonly csrf: string;
}

/** A whole page. */
export function page(title: string, body: Html, viewer?: Viewer, status = 200): Response {
  const header =
    viewer === undefined
      ? html`<header><span class="brand">memdir inspector</span></header>`
      : html`<header>
  <a class="brand" href="${href('')}">memdir inspector</a>
  <span class="meta">signed in as <strong>${viewer.name}</strong> (${viewer.mode}${viewer.stores ? ', every store' : ''})</span>
  <form method="post" action="${href('sign-out')}"><input type="hidden" name="csrf" value="${viewer.csrf}"><button class="plain" type="submit">Sign out</button></form>
</header>`;
  const document = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} - memdir</title>
<link rel="stylesheet" href="${STYLE_PATH}">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${header}
<main id="main">
${body}
</main>
</body>
</html>
`;
  return new Response(document.toString(), { status, headers: securityHeaders('text/html; charset=utf-8') });
}

/** A redirect after a form (303: the browser follows with GET). */
export function seeOther(location: string, headers: Record<string, string> = {}): Response {
  return new Response(null, {
    status: 303,
    headers: { ...securityHeaders('text/plain'), location, ...headers },
  });
}
