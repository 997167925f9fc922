// The pages that change: restore a version (confirmed by a button) and redact one (confirmed by
// typing its id). Each is a GET that shows what will happen, then a POST with the page's CSRF token
// (door.ts checks it and the token's mode before `changeRequest` runs). A restore is recorded as a
// change by the signed-in token's name.
import { type PageContext, PageError } from './context.js';
import { type Html, html, shown } from './html.js';
import { href, page, seeOther } from './layout.js';
import { numbered } from './pages.js';

function versionId(value: string | null | undefined): string {
  if (value === null || value === undefined || value === '')
    throw new PageError(400, 'The link lacks its version.');
  return value;
}

function confirmForm(
  action: string,
  namespace: string,
  version: string,
  csrf: string,
  fields: Html,
  button: Html,
): Html {
  return html`<form method="post" action="${href(action, { ns: namespace })}">
<input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="version" value="${version}">
${fields}
${button}
</form>`;
}

/** The confirmation page of a change at `route`, or `undefined` when `route` is not one. */
export async function changePage(route: string, context: PageContext): Promise<Response | undefined> {
  if (route !== 'restore' && route !== 'redact') return undefined;
  if (context.viewer.mode !== 'read-write') throw new PageError(403, 'This token may only read.');
  const { namespace, store } = await context.store();
  const found = await store.version(versionId(context.url.searchParams.get('version')));
  const where = found.path === null ? html`(redacted)` : html`<span class="path">${shown(found.path)}</span>`;
  if (route === 'restore') {
    const body = html`<h1>Restore version <code>${found.id}</code>?</h1>
<p>${where} gets this content back, as a new <code>restored</code> version made by ${shown(context.grant.name)}. Nothing in its history is lost.</p>
${found.content === null ? html`<p>This version has no content to restore.</p>` : numbered(found.content)}
${confirmForm('restore', namespace, found.id, context.viewer.csrf, html``, html`<button type="submit">Restore this version</button>`)}`;
    return page('Restore', body, context.viewer);
  }
  const body = html`<h1>Redact version <code>${found.id}</code>?</h1>
<p>The content, path, size and hash of this version of ${where} are removed for good; the file as it is now does not change. This cannot be undone.</p>
${confirmForm(
  'redact',
  namespace,
  found.id,
  context.viewer.csrf,
  html`<label for="confirm">Type the version id <code>${found.id}</code> to confirm</label>
<input id="confirm" name="confirm" type="text" autocomplete="off" required>`,
  html`<button class="danger" type="submit">Redact this version</button>`,
)}`;
  return page('Redact', body, context.viewer);
}

/** Runs the change a confirmed form asks for. */
export async function changeRequest(
  route: string,
  form: URLSearchParams,
  context: PageContext,
): Promise<Response> {
  if (route !== 'restore' && route !== 'redact') throw new PageError(404, 'There is no such change.');
  const id = versionId(form.get('version'));
  const { namespace, store } = await context.store();
  if (route === 'restore') {
    const restored = await store.restore(id, { actor: { type: 'user', id: context.grant.name } });
    return seeOther(href('history', { ns: namespace, path: restored.path ?? undefined }));
  }
  if (form.get('confirm') !== id) {
    throw new PageError(400, 'Nothing was redacted: type the version id exactly to confirm.');
  }

  await store.redact(id);
  return seeOther(href('version', { ns: namespace, id }));
}
