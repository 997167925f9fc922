// The pages that read: namespaces with usage, a folder, a file (as the model sees it, and raw), the
// history of a file or a namespace (with filters), one version, and a diff of two versions.
import type { MemoryVersion, NamespaceUsage, VersionOperation } from '@memdir/core';
import { REGISTRY_NAMESPACE } from '../api/registry.js';
import { type PageContext, PageError } from './context.js';
import { sideBySideDiff, unifiedDiff } from './diff-view.js';
import { type FolderSize, folderSizes } from './folder-sizes.js';
import { type Html, html, shown } from './html.js';
import { CSP, href, page, securityHeaders } from './layout.js';
import { type StoreLabel, storeLabels } from './memory-stores.js';
import { fieldTime, filterTime } from './time-filter.js';

/** Files on one page of a folder. */
export const TREE_PAGE = 100;
/** Versions on one page of a history. */
export const HISTORY_PAGE = 50;
const OPERATIONS: readonly VersionOperation[] = ['created', 'modified', 'renamed', 'deleted', 'restored'];

function parameter(context: PageContext, name: string): string | undefined {
  const value = context.url.searchParams.get(name);
  return value === null || value === '' ? undefined : value;
}

function required(context: PageContext, name: string): string {
  const value = parameter(context, name);
  if (value === undefined) throw new PageError(400, `The link lacks its ${name}.`);
  return value;
}

function time(ms: number | string | null): string {
  if (ms === null) return '-';
  return new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
}

function bytes(n: number | null): string {
  if (n === null) return '-';
  return n < 1024
    ? `${n} B`
    : n < 1048576
      ? `${(n / 1024).toFixed(1)} KiB`
      : `${(n / 1048576).toFixed(1)} MiB`;
}

/** Links to each folder above `path` (`/memories` first). */
function crumbs(namespace: string, path: string): Html {
  const parts = path.split('/').filter((part) => part !== '');
  const links: Html[] = [];
  for (let index = 1; index <= parts.length; index++) {
    const at = `/${parts.slice(0, index).join('/')}`;
    const link = html`<a class="path" href="${href('tree', { ns: namespace, path: at })}">${shown(parts[index - 1]!)}</a>`;
    links.push(index === 1 ? link : html` / ${link}`);
  }
  return html`<nav class="crumbs" aria-label="Folders">${links}</nav>`;
}

/** A memory store's name (its user's or model's text, shown as such) and state, or '-'. */
function storeCell(namespace: string, label: StoreLabel | undefined): Html | string {
  if (namespace === REGISTRY_NAMESPACE)
    return html`<span class="meta">(the registry of memory stores)</span>`;
  if (label === undefined) return '-';
  const state =
    label.state === 'archived' && label.archivedAt !== null
      ? `archived ${time(label.archivedAt)}`
      : label.state;
  return html`<span class="store-name">${shown(label.name)}</span> <span class="meta">(${state})</span>`;
}

async function namespaces(context: PageContext): Promise<Response> {
  const { grant, options } = context;
  let names: readonly string[] = [grant.namespace];
  let next: string | null = null;
  if (grant.stores === true && options.admin !== undefined) {
    const listed = await options.admin.listNamespaces({ cursor: parameter(context, 'cursor'), limit: 50 });
    names = listed.namespaces;
    next = listed.next;
  }
  const [usages, labels] = await Promise.all([
    Promise.all(names.map((name) => options.admin?.usage(name))) as Promise<
      Array<NamespaceUsage | undefined>
    >,
    storeLabels(options, names),
  ]);
  const rows = names.map(
    (name, index) => html`<tr>
<td class="path"><a href="${href('tree', { ns: name, path: '/memories' })}">${shown(name)}</a></td>
<td>${storeCell(name, labels.get(name))}</td>
<td class="num">${usages[index]?.files ?? '-'}</td>
<td class="num">${usages[index] === undefined ? '-' : bytes(usages[index]!.bytes)}</td>
<td class="num">${usages[index]?.versions ?? '-'}</td>
<td>${usages[index] === undefined ? '-' : time(usages[index]!.lastChangeAt)}</td>
<td><a href="${href('history', { ns: name })}">history</a></td>
</tr>`,
  );
  const body = html`<h1>Namespaces</h1>
<div class="scroll" tabindex="0"><table>
<thead><tr><th scope="col">Namespace</th><th scope="col">Memory store</th><th scope="col" class="num">Files</th><th scope="col" class="num">Bytes</th><th scope="col" class="num">Versions</th><th scope="col">Last change</th><th scope="col">History</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>
${next === null ? '' : html`<p><a href="${href('', { cursor: next })}">Next namespaces</a></p>`}`;
  return page('Namespaces', body, context.viewer);
}

/** A folder row's file count and total size ("at least" when its scan stopped at the bound). */
function folderCells(size: FolderSize | undefined): Html {
  if (size === undefined) return html`<td class="num">-</td><td class="num">-</td>`;
  const files = size.files.toLocaleString('en');
  return size.complete
    ? html`<td class="num">${files}</td><td class="num">${bytes(size.bytes)}</td>`
    : html`<td class="num">at least ${files}</td><td class="num">at least ${bytes(size.bytes)}</td>`;
}

async function tree(context: PageContext): Promise<Response> {
  const { namespace, store } = await context.store();
  const path = parameter(context, 'path') ?? '/memories';
  const at = parameter(context, 'at');
  if (at !== undefined) {
    // The tree as it was: the listing the model would have seen then.
    const past = await store.asOf(at);
    const listing = await past.view({ command: 'view', path });
    const body = html`${crumbs(namespace, path)}<h1>${shown(path)} as of ${at}</h1>
<p><a href="${href('tree', { ns: namespace, path })}">Now</a></p>
<pre tabindex="0">${shown(listing)}</pre>`;
    return page(`${path} as of ${at}`, body, context.viewer);
  }
  const listed = await store.records.list({
    path,
    depth: 1,
    limit: TREE_PAGE,
    cursor: parameter(context, 'cursor'),
  });
  const sizes = await folderSizes(
    store,
    listed.items.filter((item) => item.kind === 'folder').map((item) => item.path),
  );
  const rows = listed.items.map((item) =>
    item.kind === 'folder'
      ? html`<tr><td class="path"><a href="${href('tree', { ns: namespace, path: item.path })}">${shown(item.path.slice(path.length + 1))}/</a></td>${folderCells(sizes.get(item.path))}<td>-</td></tr>`
      : html`<tr><td class="path"><a href="${href('file', { ns: namespace, path: item.path })}">${shown(item.path.slice(path.length + 1))}</a></td><td class="num"></td><td class="num">${bytes(item.size)}</td><td>${time(item.changedAt)}</td></tr>`,
  );
  const body = html`${crumbs(namespace, path)}<h1>${shown(path)}</h1>
<p><a href="${href('history', { ns: namespace })}">History of ${shown(namespace)}</a> · <a href="${href('search', { ns: namespace })}">Search paths</a></p>
<form class="filters" method="get" action="${href('tree')}">
<input type="hidden" name="ns" value="${namespace}"><input type="hidden" name="path" value="${path}">
<label>As of (a time or a version id) <input type="text" name="at" placeholder="2026-01-31T12:00:00Z"></label>
<button type="submit">Show</button>
</form>
${
  rows.length === 0
    ? html`<p>This folder is empty.</p>`
    : html`<div class="scroll" tabindex="0"><table>
<thead><tr><th scope="col">Name</th><th scope="col" class="num">Files</th><th scope="col" class="num">Size</th><th scope="col">Changed</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
}
${listed.next === null ? '' : html`<p><a href="${href('tree', { ns: namespace, path, cursor: listed.next })}">Next page</a></p>`}`;
  return page(path, body, context.viewer);
}

async function fileRecord(context: PageContext) {
  const { namespace, store } = await context.store();
  const path = required(context, 'path');
  const record = await store.records.get(path, { content: true });
  if (record === null) throw new PageError(404, 'There is no file at this path.');
  return { namespace, store, path, record };
}

async function file(context: PageContext): Promise<Response> {
  const { namespace, store, path, record } = await fileRecord(context);
  const asModelSees = await store.view({ command: 'view', path });
  const folder = path.slice(0, path.lastIndexOf('/'));
  const body = html`${crumbs(namespace, folder)}<h1 class="path">${shown(path)}</h1>
<p class="meta">${bytes(record.size)}, changed ${time(record.changedAt)}, id <code>${record.id}</code>, sha256 <code>${record.sha256}</code></p>
<p><a href="${href('raw', { ns: namespace, path })}">Raw</a> · <a href="${href('history', { ns: namespace, path })}">History</a></p>
<h2>As the model sees it</h2>
<pre tabindex="0">${shown(asModelSees)}</pre>`;
  return page(path, body, context.viewer);
}

async function raw(context: PageContext): Promise<Response> {
  const { record } = await fileRecord(context);
  // Plain text, never sniffed, sandboxed when opened on its own.
  return new Response(record.content ?? '', {
    headers: securityHeaders('text/plain; charset=utf-8', `${CSP}; sandbox`),
  });
}

function actorOf(version: MemoryVersion): string {
  return version.actor === null ? '-' : `${version.actor.type}:${version.actor.id}`;
}

async function history(context: PageContext): Promise<Response> {
  const { namespace, store } = await context.store();
  const path = parameter(context, 'path');
  const actor = parameter(context, 'actor');
  const operation = parameter(context, 'operation');
  const since = filterTime('Since', parameter(context, 'since'));
  const until = filterTime('Until', parameter(context, 'until'));
  if (since !== undefined && until !== undefined && since > until) {
    throw new PageError(400, '"Since" is later than "Until": no version can match. Nothing was filtered.');
  }
  if (operation !== undefined && !OPERATIONS.includes(operation as VersionOperation)) {
    throw new PageError(400, `The operation must be one of ${OPERATIONS.join(', ')}.`);
  }
  const found = await store.history({
    path,
    actor,
    since,
    until,
    operations: operation === undefined ? undefined : [operation as VersionOperation],
    limit: HISTORY_PAGE,
    cursor: parameter(context, 'cursor'),
  });
  const changes = context.viewer.mode === 'read-write';
  const rows = found.versions.map((version, index) => {
    const older = found.versions.slice(index + 1).find((other) => other.fileId === version.fileId);
    const hasContent =
      version.size !== null && version.redactedAt === null && version.operation !== 'deleted';
    return html`<tr>
<td>${time(version.createdAt)}</td>
<td>${version.operation}</td>
<td class="path">${version.path === null ? '(redacted)' : html`<a href="${href('file', { ns: namespace, path: version.path })}">${shown(version.path)}</a>`}</td>
<td>${shown(actorOf(version))}</td>
<td>${version.command}</td>
<td>${version.toolUseId === null ? '-' : shown(version.toolUseId)}</td>
<td class="num">${bytes(version.size)}</td>
<td><a href="${href('version', { ns: namespace, id: version.id })}">${version.id}</a></td>
<td>${older === undefined ? '' : html`<a href="${href('diff', { ns: namespace, from: older.id, to: version.id })}">diff</a>`}
${changes && hasContent ? html` <a href="${href('restore', { ns: namespace, version: version.id })}">restore</a>` : ''}
${changes && version.redactedAt === null ? html` <a href="${href('redact', { ns: namespace, version: version.id })}">redact</a>` : ''}</td>
</tr>`;
  });
  const options = OPERATIONS.map(
    (name) => html`<option value="${name}"${name === operation ? html` selected` : ''}>${name}</option>`,
  );
  const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
  const query = { ns: namespace, path, actor, operation, since: iso(since), until: iso(until) };
  const body = html`${path === undefined ? '' : crumbs(namespace, path.slice(0, path.lastIndexOf('/')))}
<h1>History of ${path === undefined ? html`namespace ${shown(namespace)}` : html`<span class="path">${shown(path)}</span>`}</h1>
<form class="filters" method="get" action="${href('history')}">
<input type="hidden" name="ns" value="${namespace}">${path === undefined ? '' : html`<input type="hidden" name="path" value="${path}">`}
<label>Actor id <input type="text" name="actor" value="${actor ?? ''}"></label>
<label>Operation <select name="operation"><option value="">any</option>${options}</select></label>
<label>Since (UTC) <input type="datetime-local" name="since" step="1" value="${fieldTime(since)}"></label>
<label>Until (UTC) <input type="datetime-local" name="until" step="1" value="${fieldTime(until)}"></label>
<button type="submit">Filter</button>
</form>
${
  rows.length === 0
    ? html`<p>No versions match.</p>`
    : html`<div class="scroll" tabindex="0"><table>
<thead><tr><th scope="col">Time</th><th scope="col">Operation</th><th scope="col">Path</th><th scope="col">Actor</th><th scope="col">Command</th><th scope="col">Tool call id</th><th scope="col" class="num">Size</th><th scope="col">Version</th><th scope="col">Actions</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
}
${found.next === null ? '' : html`<p><a href="${href('history', { ...query, cursor: found.next })}">Older versions</a></p>`}`;
  return page(path === undefined ? `History of ${namespace}` : `History of ${path}`, body, context.viewer);
}

/** A text with line numbers, as a table (numbers are not copied with the text). */
export function numbered(content: string): Html {
  const lines = content.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const rows = lines.map(
    (line, index) => html`<tr><td class="n">${index + 1}</td><td>${shown(line)}</td></tr>`,
  );
  return html`<div class="scroll" tabindex="0"><table class="lines"><tbody>${rows}</tbody></table></div>`;
}

async function version(context: PageContext): Promise<Response> {
  const { namespace, store } = await context.store();
  const found = await store.version(required(context, 'id'));
  const body = html`<h1>Version <code>${found.id}</code></h1>
<p class="meta">${found.operation} ${found.path === null ? '' : html`<span class="path">${shown(found.path)}</span>`} at ${time(found.createdAt)} by ${shown(actorOf(found))}, ${bytes(found.size)}</p>
${found.path === null ? '' : html`<p><a href="${href('history', { ns: namespace, path: found.path })}">History of this file</a></p>`}
${found.content === null ? html`<p>This version has no content (a deletion, or redacted).</p>` : numbered(found.content)}`;
  return page(`Version ${found.id}`, body, context.viewer);
}

async function diff(context: PageContext): Promise<Response> {
  const { namespace, store } = await context.store();
  const [from, to] = await Promise.all([
    store.version(required(context, 'from')),
    store.version(required(context, 'to')),
  ]);
  const name = (v: MemoryVersion) => `${v.path ?? '(redacted)'} (${v.id}, ${time(v.createdAt)})`;
  const split = parameter(context, 'view') === 'split';
  const query = { ns: namespace, from: from.id, to: to.id };
  const body = html`<h1>Diff</h1>
<p class="meta">From <a href="${href('version', { ns: namespace, id: from.id })}">${from.id}</a> to <a href="${href('version', { ns: namespace, id: to.id })}">${to.id}</a></p>
<p>${split ? html`<a href="${href('diff', query)}">Unified</a> · Side by side` : html`Unified · <a href="${href('diff', { ...query, view: 'split' })}">Side by side</a>`}</p>
${split ? sideBySideDiff(from.content ?? '', to.content ?? '') : unifiedDiff(from.content ?? '', to.content ?? '', name(from), name(to))}`;
  return page('Diff', body, context.viewer);
}

/** Files a search looks through per request (then it offers to go on). */
export const SEARCH_SCAN = 10_000;

async function search(context: PageContext): Promise<Response> {
  const { namespace, store } = await context.store();
  const query = parameter(context, 'q') ?? '';
  const found: Html[] = [];
  let cursor = parameter(context, 'cursor');
  let scanned = 0;
  if (query !== '') {
    const needle = query.toLowerCase();
    do {
      const listed = await store.records.list({ path: '/memories', depth: 0, limit: 1000, cursor });
      scanned += listed.items.length;
      for (const item of listed.items) {
        if (item.kind === 'file' && item.path.toLowerCase().includes(needle)) {
          found.push(
            html`<li><a class="path" href="${href('file', { ns: namespace, path: item.path })}">${shown(item.path)}</a> <span class="meta">${bytes(item.size)}</span></li>`,
          );
        }
      }
      cursor = listed.next ?? undefined;
    } while (cursor !== undefined && scanned < SEARCH_SCAN && found.length < 1000);
  }
  const body = html`<h1>Search paths in ${shown(namespace)}</h1>
<form class="filters" method="get" action="${href('search')}" role="search">
<input type="hidden" name="ns" value="${namespace}">
<label>Path contains <input type="text" name="q" value="${query}"></label>
<button type="submit">Search</button>
</form>
${query === '' ? '' : found.length === 0 ? html`<p>No path matches.</p>` : html`<ul>${found}</ul>`}
${cursor === undefined || query === '' ? '' : html`<p><a href="${href('search', { ns: namespace, q: query, cursor })}">Search further</a> (${scanned} files looked at)</p>`}`;
  return page('Search', body, context.viewer);
}

const PAGES: Record<string, (context: PageContext) => Promise<Response>> = {
  '': namespaces,
  tree,
  file,
  raw,
  history,
  version,
  diff,
  search,
};

/** The page at `route`, or a 404. */
export function readPage(route: string, context: PageContext): Promise<Response> {
  const handler = Object.hasOwn(PAGES, route) ? PAGES[route] : undefined;
  if (handler === undefined) return Promise.reject(new PageError(404, 'There is no such page.'));
  return handler(context);
}
