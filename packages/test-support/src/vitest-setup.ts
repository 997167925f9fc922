// The vitest global setup each adapter's test/servers.ts exports: startServers for its servers,
// their variables put where vitest's workers read them, and a teardown.
import type { ServerName } from './server-names.js';
import { type StartServersOptions, startServers } from './servers.js';

/**
 * A vitest global setup that gets the servers `names` lists (see `startServers` for the order) and
 * puts their variables (REDIS_URL, DATABASE_URL, S3_*...) in `process.env`, where vitest 4's
 * workers read them (forks and threads alike). Its teardown stops what it started and nothing else.
 * In a package's `test/servers.ts`:
 *
 * ```ts
 * import { serversSetup } from '@memdir/test-support';
 * export default serversSetup(['redis', 'redis-cluster']);
 * ```
 *
 * and `globalSetup: ['test/servers.ts']` in its `vitest.config.ts`.
 */
export function serversSetup(
  names: readonly ServerName[],
  options: StartServersOptions = {},
): () => Promise<() => Promise<void>> {
  return async function setup() {
    const servers = await startServers(names, options);
    Object.assign(process.env, servers.env);
    // memdir runs on Node 20 by design; the SDK's notice that its 2027 releases need Node 22 would
    // otherwise open every test file's output.
    if (names.includes('s3')) process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
    // Which servers the setup vouched for: lets a test tell this setup's variables reached it.
    process.env['MEMDIR_TEST_SERVERS'] = names.join(',');
    return () => servers.stop();
  };
}
