import { serversSetup } from '../src/index.js';

export default serversSetup(['redis', 'redis-cluster', 'postgres', 's3']);
