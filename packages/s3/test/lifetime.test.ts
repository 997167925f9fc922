// A process whose only work left is a change waiting (for the lease, or out a backoff) must finish
// that change. The waits used unref'd timers, so a script writing many new files through the driver
// (one lease session past its hold time, yielding to other processes) exited in the middle with
// Node's code 13, its writes half done and no error anywhere.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { bucket, clearPrefix, keysUnder, rawClient, server, uniquePrefix } from './helpers.js';

const LANES = fileURLToPath(new URL('./fixtures/lanes.mjs', import.meta.url));
const admin = rawClient();
const prefix = uniquePrefix('lifetime');
afterAll(async () => {
  await clearPrefix(admin, `${prefix}/`);
  admin.destroy();
});

it('a script writing 300 new files 2 at a time, with nothing else to do, writes them all and exits 0', async () => {
  const count = 300;
  const input = JSON.stringify({
    driver: { driver: { bucket, prefix }, clientConfig: server.clientConfig },
    count,
    lanes: 2,
  });
  const output = await new Promise<{ written: number }>((resolve, reject) => {
    execFile(process.execPath, [LANES, input], { maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`the script exited with ${String(error.code)}: ${stderr}`));
      else resolve(JSON.parse(stdout) as { written: number });
    });
  });
  expect(output).toEqual({ written: count });
  const files = (await keysUnder(admin, `${prefix}/memories/`)).filter((key) => key.endsWith('.md'));
  expect(files).toHaveLength(count);
}, 120_000);
