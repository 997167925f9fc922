import { serversSetup } from '@memdir/test-support';

// The PostgreSQL and Redis behind the memdir servers these tests talk to (see @memdir/test-support).
export default serversSetup(['redis', 'postgres']);
