import { serversSetup } from '@memdir/test-support';

// The Redis and PostgreSQL of test/servers.test.ts (see @memdir/test-support).
export default serversSetup(['redis', 'postgres']);
