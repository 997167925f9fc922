// The memory stores API on Redis.
import { redisUrl } from '@memdir/test-support';
import { apiSuite } from './api-suite.js';

apiSuite('redis', () => `${redisUrl()}?keyPrefix=memdir-api-test:`);
