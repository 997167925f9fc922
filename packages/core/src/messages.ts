// Every text the model reads lives here: results, error messages and the pieces they are built
// from, byte for byte as SPEC.md gives them (section numbers in the comments). The commands decide
// which text applies; this module decides how it reads. docs/protocol.md lists every template, and a
// test checks that the two agree.

/** The memory root every path lives under. */
export const MEMORY_ROOT = '/memories';

/** The longest valid path, in UTF-8 bytes after normalisation (SPEC section 2). */
export const MAX_PATH_BYTES = 1024;
/** The longest valid path segment, in UTF-8 bytes after normalisation. */
export const MAX_SEGMENT_BYTES = 255;
/** The longest path accepted as sent, in characters (UTF-16 code units), before any normalisation. */
export const MAX_PATH_CHARS = 4096;
/** The most lines `view` shows of one file (SPEC section 4.1). */
export const MAX_VIEW_LINES = 999_999;
/** The most line numbers a `MULTIPLE_MATCHES` message lists (SPEC section 4.3). */
export const MAX_MATCH_LINES = 100;
/** The most characters of a refused value an `INVALID_INPUT` message quotes (SPEC section 7). */
export const MAX_QUOTED_CHARS = 100;
/** The most characters of `old_str` that `NO_MATCH` and `MULTIPLE_MATCHES` echo (SPEC section 4.3). */
export const MAX_ECHOED_OLD_STR = 1_000;

// --- Pieces --------------------------------------------------------------------------------------

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
  // The first lines of a file (nearly every line viewed) take their prefix from a table.
  if (lineNumber < NUMBER_PREFIXES.length) return NUMBER_PREFIXES[lineNumber] + line;
  return `${String(lineNumber).padStart(LINE_NUMBER_WIDTH, ' ')}\t${line}`;
}

/** `"     1\t"`... for the first 1,000 line numbers. */
const NUMBER_PREFIXES: readonly string[] = Array.from(
  { length: 1000 },
  (_, lineNumber) => `${String(lineNumber).padStart(LINE_NUMBER_WIDTH, ' ')}\t`,
);

/** One line of a directory listing: `"4.2K\t/memories/notes/"`. */
export function listingLine(size: number, path: string, directory: boolean): string {
  return `${formatSize(size)}\t${path}${directory ? '/' : ''}`;
}

/** The first `limit` characters of `text`, never cutting a surrogate pair in half. */
function head(text: string, limit = MAX_QUOTED_CHARS): string {
  let end = limit;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end);
}

/**
 * A value the model sent, quoted for an `INVALID_INPUT` message: a string as JSON, at most
 * {@link MAX_QUOTED_CHARS} characters of it, with its length when cut (SPEC section 7).
 */
export function quote(text: string): string {
  if (text.length <= MAX_QUOTED_CHARS) return JSON.stringify(text);
  return `${JSON.stringify(head(text))}... (${text.length} characters)`;
}

/** A path as an invalid-path message echoes it: as given, or its start when over 4096 characters. */
function echoPath(input: string): string {
  return input.length <= MAX_PATH_CHARS ? input : quote(input);
}

/** How an `INVALID_INPUT` message names a value the model sent. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${quote(value)}`;
  if (typeof value === 'number') return `the number ${value}`;
  const type = typeof value;
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

// --- view (SPEC 4.1) -----------------------------------------------------------------------------

export function listingHeader(path: string): string {
  return `Here're the files and directories up to 2 levels deep in ${path}, excluding hidden items and node_modules:\n`;
}

export function listingTruncated(shown: number, total: number): string {
  return `[Listing truncated: ${shown} of ${total} entries shown. View a subdirectory to see the rest.]`;
}

export function fileHeader(path: string): string {
  return `Here's the content of ${path} with line numbers:\n`;
}

export function fileTruncated(first: number, last: number, total: number): string {
  return `[Output truncated: showing lines ${first}-${last} of ${total}. Use view_range to see the rest.]`;
}

export function tooManyLines(path: string, lines: number): string {
  return `File ${path} has too many lines (${lines}). Maximum is 999,999 lines.`;
}

export function viewRangeNotTwoIntegers(shown: string): string {
  return `Invalid \`view_range\` parameter: ${shown}. It should be a list of two integers [start, end].`;
}

export function viewRangeStartBelowOne(start: number, end: number): string {
  return `Invalid \`view_range\` parameter: [${start}, ${end}]. Its first element \`${start}\` should be at least 1.`;
}

export function viewRangeEndBeforeStart(start: number, end: number): string {
  return `Invalid \`view_range\` parameter: [${start}, ${end}]. Its second element \`${end}\` should be larger or equal than its first \`${start}\`, or -1 to view to the end of the file.`;
}

export function viewRangeStartPastEnd(start: number, end: number, lines: number): string {
  return `Invalid \`view_range\` parameter: [${start}, ${end}]. Its first element \`${start}\` should be within the range of lines of the file: [1, ${lines}]`;
}

/** `view`, `str_replace` and `insert` of a missing path. */
export function pathNotFoundPleaseProvide(path: string): string {
  return `The path ${path} does not exist. Please provide a valid path.`;
}

// --- create (SPEC 4.2) ---------------------------------------------------------------------------

export function created(path: string): string {
  return `File created successfully at: ${path}`;
}

export function fileAlreadyExists(path: string): string {
  return `File ${path} already exists`;
}

export function isADirectory(path: string): string {
  return `The path ${path} is a directory`;
}

/** `create` and `rename` when a parent of the new path is a file. */
export function parentIsAFile(path: string, parent: string): string {
  return `Cannot create ${path}: ${parent} is a file`;
}

export function tooLarge(path: string, bytes: number, limit: number): string {
  return `File ${path} would be ${bytes} bytes, over the limit of ${limit} bytes. Nothing was written.`;
}

// --- str_replace (SPEC 4.3) ----------------------------------------------------------------------

export function edited(snippet: string): string {
  return `The memory file has been edited. Here is the snippet showing the change (with line numbers):\n${snippet}`;
}

export function notAFile(path: string): string {
  return `The path ${path} is not a file.`;
}

export const EMPTY_OLD_STR = 'No replacement was performed, old_str must not be empty.';

/**
 * `old_str` as `NO_MATCH` and `MULTIPLE_MATCHES` echo it: whole up to 1,000 characters, else its
 * first 1,000 (999 when the 1,000th is the first half of a surrogate pair) and its length.
 */
export function echoOldStr(oldStr: string): string {
  if (oldStr.length <= MAX_ECHOED_OLD_STR) return oldStr;
  return `${head(oldStr, MAX_ECHOED_OLD_STR)}... (${oldStr.length} characters)`;
}

export function noMatch(oldStr: string, path: string): string {
  return `No replacement was performed, old_str \`${echoOldStr(oldStr)}\` did not appear verbatim in ${path}.`;
}

/**
 * `lines` holds the line of each of the first {@link MAX_MATCH_LINES} occurrences; `count` is the
 * number of all of them.
 */
export function multipleMatches(oldStr: string, lines: readonly number[], count: number): string {
  const listed = count > lines.length ? `${lines.join(', ')}, ... (${count} occurrences)` : lines.join(', ');
  return `No replacement was performed. Multiple occurrences of old_str \`${echoOldStr(oldStr)}\` in lines: ${listed}. Please ensure it is unique`;
}

// --- insert (SPEC 4.4) ---------------------------------------------------------------------------

export function inserted(path: string): string {
  return `The file ${path} has been edited.`;
}

export function invalidInsertLine(line: number, lines: number): string {
  return `Invalid \`insert_line\` parameter: ${line}. It should be within the range of lines of the file: [0, ${lines}]`;
}

// --- delete (SPEC 4.5) ---------------------------------------------------------------------------

export function deleted(path: string): string {
  return `Successfully deleted ${path}`;
}

/** `delete` and `rename` of a missing path. */
export function pathNotFound(path: string): string {
  return `The path ${path} does not exist`;
}

export const CANNOT_DELETE_ROOT = `Cannot delete the ${MEMORY_ROOT} directory itself`;

// --- rename (SPEC 4.6) ---------------------------------------------------------------------------

export function renamed(from: string, to: string): string {
  return `Successfully renamed ${from} to ${to}`;
}

export function destinationExists(path: string): string {
  return `The destination ${path} already exists`;
}

export const CANNOT_RENAME_ROOT = `Cannot rename the ${MEMORY_ROOT} directory itself`;

export function moveIntoItself(path: string): string {
  return `Cannot move ${path} into itself`;
}

// --- paths (SPEC 2, 8) ---------------------------------------------------------------------------

export function pathNotUnderRoot(input: string): string {
  return `Path must start with ${MEMORY_ROOT}, got: ${echoPath(input)}`;
}

export function pathEscapes(input: string): string {
  return `Path ${input} would escape ${MEMORY_ROOT} directory`;
}

export function pathTooLongAsSent(input: string): string {
  return `Path ${quote(input)} is ${input.length} characters long; a path may have at most ${MAX_PATH_CHARS} characters`;
}

export function pathForbiddenCharacter(input: string): string {
  return `Path ${JSON.stringify(input)} contains a character that is not allowed (control characters, backslashes and unpaired UTF-16 surrogates are refused)`;
}

export function pathPercentEncoded(input: string, sequence: string): string {
  return `Path ${input} contains the percent-encoded sequence ${sequence}; percent-encoding is not allowed in paths`;
}

export function pathSegmentTooLong(input: string, bytes: number): string {
  return `Path ${input} has a name of ${bytes} bytes; each name may have at most ${MAX_SEGMENT_BYTES} bytes`;
}

export function pathTooLong(input: string, bytes: number, limit: number): string {
  return `Path ${input} is ${bytes} bytes long; a path may have at most ${limit} bytes`;
}

export const SYMLINK_ESCAPE = `Path would escape ${MEMORY_ROOT} directory via symlink`;

// --- tool input (SPEC 1) -------------------------------------------------------------------------

export function notAnObject(command: string, value: unknown): string {
  return `Invalid input for the \`${command}\` command: expected an object, got ${describeValue(value)}.`;
}

export function fieldNotAString(command: string, field: string, value: unknown): string {
  return `Invalid input for the \`${command}\` command: \`${field}\` must be a string, got ${describeValue(value)}.`;
}

export function fieldNotAnInteger(command: string, field: string, value: unknown): string {
  return `Invalid input for the \`${command}\` command: \`${field}\` must be an integer, got ${describeValue(value)}.`;
}

export function fieldNotWellFormed(command: string, field: string): string {
  return `Invalid input for the \`${command}\` command: \`${field}\` holds an unpaired UTF-16 surrogate (half of a surrogate pair), which UTF-8 cannot store. Nothing was written.`;
}

export function inputNotAnObject(value: unknown): string {
  return `Invalid memory tool input: expected an object with a \`command\` field, got ${describeValue(value)}.`;
}

export function unknownCommand(value: unknown, known: readonly string[]): string {
  let shown: string;
  if (typeof value !== 'string') shown = describeValue(value);
  else if (value.length <= MAX_QUOTED_CHARS) shown = `\`${value}\``;
  else shown = `\`${head(value)}\`... (${value.length} characters)`;
  return `Unknown memory command ${shown}. Expected one of: ${known.join(', ')}.`;
}

export const UNREADABLE_INPUT =
  'Invalid memory tool input: it could not be read (a field could not be accessed).';

// --- storage (SPEC 7) ----------------------------------------------------------------------------

/** A storage failure, in plain words: `reason` says what failed, without secrets or host paths. */
export function storeUnavailable(reason: string): string {
  return `The memory store is unavailable: ${reason}. Try again.`;
}

/**
 * A store that cannot work until someone fixes its configuration (a wrong password, a missing
 * database or bucket): the model is not told to try again.
 */
export function storeMisconfigured(reason: string): string {
  return `The memory store is unavailable: ${reason}. Trying again will not help until the store's configuration is fixed.`;
}

/** A change whose outcome is unknown: the request may have been applied. */
export function changeOutcomeUnknown(reason: string): string {
  return `The memory store is unavailable: ${reason}. The change may or may not have been saved: view the path before you try again.`;
}

/** The reason given when a driver call outlived the engine's deadline. */
export function noAnswerWithin(ms: number): string {
  const seconds = ms / 1000;
  return `it did not answer within ${seconds} ${seconds === 1 ? 'second' : 'seconds'}`;
}

export const UNEXPECTED_BACKEND_FAILURE = storeUnavailable('the storage backend failed unexpectedly');

export const STORE_CLOSED = 'The memory store is closed.';

// --- quotas (SPEC 3) -----------------------------------------------------------------------------

export function quotaBytesExceeded(path: string, total: number, max: number): string {
  return `The memory directory is full: saving ${path} would use ${total} of ${max} bytes. Delete or shorten files in ${MEMORY_ROOT} first.`;
}

export function quotaFilesExceeded(count: number, max: number): string {
  return `The memory directory is full: it holds ${count} of ${max} files. Delete files in ${MEMORY_ROOT} first.`;
}

// --- read-only stores ----------------------------------------------------------------------------

/** A change command on a store the application made read-only; `why` says how it is read-only. */
export function readOnly(command: string, why: string): string {
  return `The memory directory is read-only (${why}): the ${command} command was not run.`;
}

export function keptChanging(path: string): string {
  return `The file ${path} kept changing while it was being edited, so nothing was changed. Try again.`;
}

// --- integrations (SPEC 7) -----------------------------------------------------------------------

/** What every integration sends for a failure. */
export function errorResult(message: string): string {
  return `Error: ${message}`;
}

export const CALL_ABORTED = 'The memory command was not run: the agent run was aborted.';

/** MCP: a tool other than `memory` was called. */
export function unknownTool(name: string): string {
  const shown = name.length <= MAX_QUOTED_CHARS ? name : quote(name);
  return `Unknown tool ${shown}: this server has only "memory"`;
}

/** MCP: a request larger than the transport reads in one message; nothing was run. */
export function requestTooLarge(bytes: number, limit: number): string {
  return `The memory tool call was not run: its request is ${bytes} bytes, more than the ${limit} bytes this server reads in one message. Send large content in parts (create a file, then insert the rest).`;
}

/** MCP: a result larger than the transport can carry in one message. */
export function resultTooLarge(bytes: number, limit: number): string {
  return `The memory command ran, but its result is ${bytes} bytes, more than the ${limit} bytes this server sends in one message. View a smaller part (view_range, or a subdirectory).`;
}
