// The process surroundings a run uses (streams, environment, working directory), as one object so
// that `run()` can be embedded and tested, and writes that wait until the stream has taken them.
import type { Readable, Writable } from 'node:stream';

/** The process surroundings a CLI run uses, so that `run()` can be embedded and tested. */
export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

/** The real process's streams, environment and working directory. */
export function processIo(): CliIo {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
  };
}

/** Writes `text` and resolves once the stream has taken it (so output is complete before exit). */
export function write(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(text, (error) => (error ? reject(error) : resolve()));
  });
}

/** The whole of a stream, decoded as UTF-8. */
export async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}
