// The inspector: memories, history and diffs in a browser (door.ts), its HTML (html.ts), sign-in
// (session.ts), pages (pages.ts, changes.ts), diffs (diff-view.ts) and style (assets.ts).
export type { InspectorOptions } from './context.js';
export { INSPECTOR_PATH, inspectorDoor, mountInspector } from './door.js';
export { escapeHtml, Html, html, shown } from './html.js';
export { CSP } from './layout.js';
