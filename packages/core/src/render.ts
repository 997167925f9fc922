// Every text the model reads on success is rendered here, byte for byte as SPEC section 4 gives it.

const SIZE_UNITS = ['B', 'K', 'M', 'G', 'T'] as const;

/**
 * Formats a byte count (SPEC section 5): 1024-based units up to `T`, whole numbers as they are,
 * others with one decimal as `toFixed(1)` prints it: `0B`, `1023B`, `4K`, `1.3K`, `1024.0K`.
 */
export function formatSize(bytes: number): string {
  if (bytes === 0) return '0B';
  let unit = 0;
  while (unit < SIZE_UNITS.length - 1 && 1024 ** (unit + 1) <= bytes) unit++;
  const value = bytes / 1024 ** unit;
  return (Number.isInteger(value) ? String(value) : value.toFixed(1)) + SIZE_UNITS[unit];
}

/** The width line numbers are right-aligned to. */
const LINE_NUMBER_WIDTH = 6;

/** One numbered line as `view` shows it: `"     1\tHello"`. */
export function numberLine(lineNumber: number, line: string): string {
  return `${String(lineNumber).padStart(LINE_NUMBER_WIDTH, ' ')}\t${line}`;
}

/**
 * The body of a file view: lines `first`..`last` (1-based, inclusive) numbered and joined by `\n`,
 * truncated to `maxChars` with the notice of SPEC section 4.1.
 */
export function renderFileBody(
  lines: readonly string[],
  first: number,
  last: number,
  maxChars: number,
): string {
  const shown: string[] = [];
  let length = 0;
  let truncated = false;
  let lastShown = first;
  for (let number = first; number <= last; number++) {
    const rendered = numberLine(number, lines[number - 1]!);
    const added = shown.length === 0 ? rendered.length : length + 1 + rendered.length;
    if (added > maxChars) {
      truncated = true;
      if (shown.length === 0) {
        // The first line alone is too long: cut it so the model still sees where the file starts.
        shown.push(rendered.slice(0, maxChars));
        lastShown = number;
      }
      break;
    }
    shown.push(rendered);
    length = added;
    lastShown = number;
  }
  const body = shown.join('\n');
  if (!truncated) return body;
  return `${body}\n[Output truncated: showing lines ${first}-${lastShown} of ${lines.length}. Use view_range to see the rest.]`;
}

/** One entry of a directory listing, before rendering. */
export interface ListingEntry {
  /** The path as shown, relative to the viewed directory (`notes` or `notes/a.md`). */
  relative: string;
  directory: boolean;
  size: number;
}

/**
 * The whole result of viewing a directory: the header, the directory's own line, then the entries
 * (already in listing order), truncated to `maxChars` with the notice of SPEC section 4.1.
 */
export function renderListing(
  path: string,
  totalSize: number,
  entries: readonly ListingEntry[],
  maxChars: number,
): string {
  const lines = [`${formatSize(totalSize)}\t${path}`];
  let length = lines[0]!.length;
  let shown = 0;
  for (const entry of entries) {
    const line = `${formatSize(entry.size)}\t${path}/${entry.relative}${entry.directory ? '/' : ''}`;
    if (length + 1 + line.length > maxChars) break;
    lines.push(line);
    length += 1 + line.length;
    shown++;
  }
  let result = `Here're the files and directories up to 2 levels deep in ${path}, excluding hidden items and node_modules:\n${lines.join('\n')}`;
  if (shown < entries.length) {
    result += `\n[Listing truncated: ${shown} of ${entries.length} entries shown. View a subdirectory to see the rest.]`;
  }
  return result;
}

/** The text `view` returns for a file, before the body. */
export function fileViewHeader(path: string): string {
  return `Here's the content of ${path} with line numbers:\n`;
}

/**
 * The `str_replace` snippet: lines `max(0, k-2)` to `min(count, k+3)` (exclusive, 0-based) of the new
 * content, where `k` is the line the replacement starts on.
 */
export function renderSnippet(newContent: string, startLine: number): string {
  const lines = newContent.split('\n');
  const from = Math.max(0, startLine - 2);
  const to = Math.min(lines.length, startLine + 3);
  const snippet: string[] = [];
  for (let index = from; index < to; index++) snippet.push(numberLine(index + 1, lines[index]!));
  return `The memory file has been edited. Here is the snippet showing the change (with line numbers):\n${snippet.join('\n')}`;
}
