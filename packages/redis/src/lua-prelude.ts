// Each script carries only the prelude functions it calls. Redis runs a script's whole chunk on
// every call, and every `local function` of it makes a new closure each time: about 0.2-0.4 µs
// apiece on the server here, so the full preludes (about 50 functions) cost a change script more
// than all of its Redis calls together (measured: a `write` replay, one HGET, took about as long as
// a `describe`'s two HGETs plus 25 µs). Dropping a function nothing calls changes no behaviour: the
// functions kept stay in their order, so each still sees the ones it calls.

/** One top-level statement of a prelude: a `local function NAME`, or any other `local` line. */
interface Statement {
  readonly name: string | undefined;
  text: string;
}

/**
 * The top-level statements of a prelude. A statement starts at a line that begins with `local` in
 * the first column (the preludes are written so: function bodies are indented, their `end` is in
 * the first column), and runs to the next such line.
 */
function statementsOf(prelude: string): Statement[] {
  const statements: Statement[] = [];
  for (const line of prelude.split('\n')) {
    const last = statements[statements.length - 1];
    if (line.startsWith('local ') || last === undefined) {
      statements.push({ name: /^local function ([A-Za-z_][A-Za-z0-9_]*)/.exec(line)?.[1], text: line });
    } else {
      last.text += `\n${line}`;
    }
  }
  return statements;
}

/** Lua source without its `--` comments, for finding the names it uses (a comment calls nothing). */
function code(text: string): string {
  return text.replace(/--[^\n]*/g, '');
}

/**
 * `prelude` without the functions that `body` does not call, directly or through another function
 * kept. A name found anywhere in the code (even in a string) keeps its function: at worst one
 * closure too many, never one too few.
 */
export function preludeFor(prelude: string, body: string): string {
  const statements = statementsOf(prelude);
  const uses = (text: string) => {
    const source = code(text);
    return statements.filter(
      (statement) => statement.name !== undefined && new RegExp(`\\b${statement.name}\\b`).test(source),
    );
  };
  const kept = new Set<Statement>();
  const pending = [...uses(body)];
  // Statements that are not functions (the keys, constants) are always kept: they make no closure.
  for (const statement of statements) if (statement.name === undefined) pending.push(statement);
  while (pending.length > 0) {
    const statement = pending.pop()!;
    if (kept.has(statement)) continue;
    kept.add(statement);
    pending.push(...uses(statement.text));
  }
  return statements
    .filter((statement) => kept.has(statement))
    .map((statement) => statement.text)
    .join('\n');
}
