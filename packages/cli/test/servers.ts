// The servers of the round trip through every backend (test/roundtrip.test.ts): the environment's
// when it names them, else testcontainers or scripts/services.sh (see @memdir/test-support).
import { serversSetup } from '@memdir/test-support';

export default serversSetup(['redis', 'postgres', 's3']);
