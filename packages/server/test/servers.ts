// The PostgreSQL of the inspector's tests: DATABASE_URL when it is set, else testcontainers or
// scripts/services.sh (see @memdir/test-support).
import { serversSetup } from '@memdir/test-support';

export default serversSetup(['postgres']);
