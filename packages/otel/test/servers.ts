import { serversSetup } from '@memdir/test-support';

// The Redis the fault tests reach through the fault proxy (see @memdir/test-support).
export default serversSetup(['redis']);
