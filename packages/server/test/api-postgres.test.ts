// The memory stores API on PostgreSQL.
import { databaseUrl } from '@memdir/test-support';
import { apiSuite } from './api-suite.js';

apiSuite('postgres', () => {
  const url = new URL(databaseUrl());
  url.searchParams.set('schema', 'memdir_api_test');
  return url.href;
});
