import { serversSetup } from '@memdir/test-support';

// The Redis, PostgreSQL and S3 of test/servers.test.ts (see @memdir/test-support).
export default serversSetup(['redis', 'postgres', 's3']);
