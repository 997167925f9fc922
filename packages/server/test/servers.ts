// The servers the memory stores API tests run on: Redis, PostgreSQL and S3 (from the environment,
// else started), put in the environment for the test files.
import { serversSetup } from '@memdir/test-support';

export default serversSetup(['redis', 'postgres', 's3']);
