// The access log of `memdir serve --http`: one line per request, with the token's name, the
// JSON-RPC methods, the memory command and its outcome, the status and the time. Never a token, a
// path or any content: what a client names is shown only when it is one of a known set.
import { MEMORY_COMMANDS } from '@memdir/core';

/** One line of the access log: never a path, a content or a token. */
export interface AccessRecord {
  token: string;
  methods: string[];
  commands: string[];
  outcomes: string[];
  /** Why the server refused the request itself, when it did. */
  refusal: string | undefined;
}

/** A JSON-RPC method name plain enough to log as the client sent it. */
export const METHOD_NAME = /^[A-Za-z0-9/_.-]{1,64}$/;

/** A method name as the log shows it: the client's own when it is a plain name, else `other`. */
export function methodLabel(message: unknown): string {
  const method = (message as { method?: unknown } | null)?.method;
  if (typeof method !== 'string') return 'response';
  return METHOD_NAME.test(method) ? method : 'other';
}

/** The memory command of a `tools/call`, as the log shows it: one of the six, else `invalid`. */
export function commandLabel(message: unknown): string {
  const args = (message as { params?: { arguments?: { command?: unknown } } }).params?.arguments;
  const command = typeof args === 'object' && args !== null ? args.command : undefined;
  return (MEMORY_COMMANDS as readonly unknown[]).includes(command) ? (command as string) : 'invalid';
}

/** A `tools/call` request (one with an id, so it gets an answer). */
export function isToolCall(message: unknown): message is { id: string | number; method: 'tools/call' } {
  const value = message as { method?: unknown; id?: unknown } | null;
  return value?.method === 'tools/call' && (typeof value.id === 'string' || typeof value.id === 'number');
}

/**
 * The line for one request: `{time} token=... method=... command=... outcome=... status=... ms=...`.
 * `status` is `aborted` when the client went away before the answer was written.
 */
export function accessLine(record: AccessRecord, status: number | 'aborted', ms: number): string {
  const outcome =
    record.refusal ??
    (record.outcomes.length > 0
      ? record.outcomes.join(',')
      : record.commands.length > 0
        ? 'not-run'
        : typeof status === 'number' && status < 400
          ? 'ok'
          : 'error');
  return [
    new Date().toISOString(),
    `token=${record.token}`,
    `method=${record.methods.join(',') || '-'}`,
    `command=${record.commands.join(',') || '-'}`,
    `outcome=${outcome}`,
    `status=${status}`,
    `ms=${ms.toFixed(1)}`,
  ].join(' ');
}
