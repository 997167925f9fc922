import { serversSetup } from '@memdir/test-support';

// The standalone Redis and the Cluster every test file here uses (see @memdir/test-support).
export default serversSetup(['redis', 'redis-cluster']);
