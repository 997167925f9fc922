// The servers of the server package's tests, from the environment, else started (see
// @memdir/test-support): PostgreSQL for the inspector, and Redis, PostgreSQL and S3 for the memory
// stores API suite.
import { serversSetup } from '@memdir/test-support';

export default serversSetup(['redis', 'postgres', 's3']);
