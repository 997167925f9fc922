// The command gate: how one call of a store's method becomes a result or a `MemoryToolError` and
// nothing else (SPEC section 7). It checks the application's call options, parses the model's input,
// runs the command on the engine, and traces the whole while someone listens on `memdir:command`.
// `store.ts` makes one gate per method.
import { runCommand } from './commands/index.js';
import type { Engine } from './engine/engine.js';
import type { TracedCall } from './engine/operation.js';
import { isMemoryToolError, MemoryToolError, unexpectedBackendFailure } from './errors.js';
import { commandName } from './input.js';
import { UNREADABLE_INPUT } from './messages.js';
import { checkCallOptions } from './store-options.js';
import { commandChannel, commandTrace } from './telemetry.js';
import type { MemoryCallOptions, MemoryCommand, MemoryCommandName } from './tool.js';

/**
 * Runs one command from untrusted input: checks it, then runs it. Whatever the input's shape, the
 * only thing that can come out is a result or a `MemoryToolError` (SPEC section 7): an input whose
 * fields cannot even be read (a throwing getter, say) is `INVALID_INPUT`, and anything else that
 * escapes is reported as an unexpected `BACKEND` failure.
 */
export async function guarded(
  engine: Engine,
  name: MemoryCommandName | undefined,
  parse: () => MemoryCommand,
  call: MemoryCallOptions | undefined,
): Promise<string> {
  // The call's options come from the application, not the model: a bad one is a TypeError.
  const checked = checkCallOptions(call);
  if (commandChannel.hasSubscribers) return traced(engine, name, parse, checked);
  return run(engine, parse, checked);
}

async function run(
  engine: Engine,
  parse: () => MemoryCommand,
  call: TracedCall | undefined,
): Promise<string> {
  let command: MemoryCommand;
  try {
    command = parse();
  } catch (error) {
    if (isMemoryToolError(error)) throw error;
    throw new MemoryToolError('INVALID_INPUT', UNREADABLE_INPUT, { cause: error });
  }
  try {
    return await runCommand(engine, command, call);
  } catch (error) {
    if (isMemoryToolError(error)) throw error;
    throw unexpectedBackendFailure(error);
  }
}

/** A command while someone listens on `memdir:command`: traced, with its outcome and counters. */
function traced(
  engine: Engine,
  name: MemoryCommandName | undefined,
  parse: () => MemoryCommand,
  call: MemoryCallOptions | undefined,
): Promise<string> {
  const trace = commandTrace(name ?? 'unknown', engine.identity, call?.toolUseId);
  const started = performance.now();
  // The traced promise settles with nothing: Node puts a traced promise's value or error on the
  // context, and a result or a message would carry paths and content to every subscriber.
  let outcome: { result: string } | { error: MemoryToolError } | undefined;
  const traced = commandChannel.tracePromise(async () => {
    try {
      const result = await run(
        engine,
        () => {
          const command = parse();
          trace.path = engine.showPath(commandPath(command));
          return command;
        },
        { ...call, trace },
      );
      trace.outcome = 'ok';
      outcome = { result };
    } catch (error) {
      const failure = isMemoryToolError(error) ? error : unexpectedBackendFailure(error);
      trace.outcome = failure.code;
      trace.reason = failure.reason;
      outcome = { error: failure };
    } finally {
      trace.durationMs = performance.now() - started;
    }
  }, trace);
  return traced.then(() => {
    if (outcome && 'result' in outcome) return outcome.result;
    throw outcome?.error;
  });
}

/** The path a command is about (the old path of a rename), for telemetry that opted in. */
function commandPath(command: MemoryCommand): string {
  return command.command === 'rename' ? command.old_path : command.path;
}

/** The command name of an `execute` input, when it can be read (for telemetry). */
export function nameOf(input: unknown): MemoryCommandName | undefined {
  try {
    return commandName(input);
  } catch {
    return undefined;
  }
}
