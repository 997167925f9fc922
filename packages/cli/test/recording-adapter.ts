// A third-party store adapter, installed into a temporary node_modules for `memdir serve` to load
// (`--store recording://`): an in-memory store per namespace that writes every call's input command
// and options (actor, toolUseId) to the file `MEMDIR_TEST_RECORD` names, and holds a `create` whose
// text is "slow" for `MEMDIR_TEST_DELAY_MS`, so a test can catch a command in flight.
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Writes the adapter into `folder/node_modules/memdir-store-recording`. */
export async function installRecordingAdapter(folder: string): Promise<void> {
  const core = pathToFileURL(createRequire(import.meta.url).resolve('@memdir/core')).href;
  const adapter = join(folder, 'node_modules', 'memdir-store-recording');
  await mkdir(adapter, { recursive: true });
  await writeFile(
    join(adapter, 'package.json'),
    JSON.stringify({ name: 'memdir-store-recording', type: 'module', exports: { './cli': './cli.js' } }),
  );
  await writeFile(
    join(adapter, 'cli.js'),
    `import { appendFileSync } from 'node:fs';
import { createInMemoryStore } from ${JSON.stringify(core)};
export function openStore(url, options) {
  const inner = createInMemoryStore(options);
  const record = process.env.MEMDIR_TEST_RECORD;
  const delay = Number(process.env.MEMDIR_TEST_DELAY_MS ?? 0);
  const execute = async (input, callOptions) => {
    if (record) {
      appendFileSync(record, JSON.stringify({
        namespace: options.namespace ?? null,
        command: input?.command ?? null,
        options: callOptions ?? null,
      }) + '\\n');
    }
    if (delay > 0 && input?.file_text === 'slow') await new Promise((resolve) => setTimeout(resolve, delay));
    return inner.execute(input, callOptions);
  };
  const one = (command, callOptions) => execute(command, callOptions);
  return {
    view: one, create: one, str_replace: one, insert: one, delete: one, rename: one,
    execute,
    close: () => inner.close(),
  };
}
`,
  );
}
