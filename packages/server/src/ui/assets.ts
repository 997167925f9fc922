// The inspector's only asset, its style sheet, shipped in the package (no font, script or image
// from anywhere else). Colours keep a contrast of at least 4.5:1; focus is always visible; tables
// scroll inside their box, so a page works at 320 px wide.

/** The path of the style sheet. */
export const STYLE_PATH = '/ui/assets/ui.css';

export const STYLE = `
:root { color-scheme: light; --ink: #1a1a1a; --muted: #4a4a4a; --line: #c8c8c8; --accent: #0b4f9c;
  --paper: #ffffff; --tint: #f2f4f7; --add: #e3f4e6; --remove: #fbe5e5; --danger: #a11818; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--ink); background: var(--paper); }
.skip { position: absolute; left: -10000px; top: .5rem; background: var(--paper); padding: .25rem .5rem; }
.skip:focus { left: .5rem; z-index: 1; }
header { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: center; padding: .5rem 1rem;
  background: var(--tint); border-bottom: 1px solid var(--line); }
header .brand { font-weight: 700; }
header form { margin-left: auto; }
main { padding: 1rem; max-width: 80rem; }
h1 { font-size: 1.4rem; margin: .5rem 0 1rem; overflow-wrap: anywhere; }
h2 { font-size: 1.1rem; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible {
  outline: 3px solid var(--accent); outline-offset: 2px; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: .5rem 0 1rem; }
th, td { text-align: left; padding: .25rem .75rem .25rem 0; border-bottom: 1px solid var(--line);
  vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.path { font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
pre { font: 14px/1.45 ui-monospace, monospace; background: var(--tint); padding: .75rem; overflow-x: auto;
  white-space: pre; border: 1px solid var(--line); }
.lines { border-collapse: collapse; font: 14px/1.45 ui-monospace, monospace; }
.lines td { border: 0; padding: 0 .75rem 0 0; white-space: pre; }
.lines td.n { color: var(--muted); text-align: right; user-select: none; }
.diff .add { background: var(--add); }
.diff .remove { background: var(--remove); }
.diff .hunk { color: var(--muted); }
.split td { white-space: pre-wrap; overflow-wrap: anywhere; }
.hidden-char { font: 12px ui-monospace, monospace; color: var(--danger); border: 1px solid var(--danger);
  padding: 0 2px; margin: 0 1px; }
.meta { color: var(--muted); overflow-wrap: anywhere; }
.store-name { overflow-wrap: anywhere; }
code { overflow-wrap: anywhere; }
.error { color: var(--danger); font-weight: 600; }
.notice { padding: .5rem .75rem; border-left: 4px solid var(--accent); background: var(--tint); }
form.inline { display: inline; }
label { display: block; margin: .5rem 0 .25rem; }
input[type=password], input[type=text], input[type=datetime-local], select { font: inherit;
  padding: .35rem .5rem; border: 1px solid var(--muted); border-radius: 4px; max-width: 100%; }
button { font: inherit; padding: .35rem .9rem; border: 1px solid var(--accent); border-radius: 4px;
  background: var(--accent); color: #fff; cursor: pointer; }
button.danger { background: var(--danger); border-color: var(--danger); }
button.plain { background: transparent; color: var(--accent); }
nav.crumbs { margin-bottom: .5rem; overflow-wrap: anywhere; }
.filters { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end; }
.filters label { margin: 0; }
`;
