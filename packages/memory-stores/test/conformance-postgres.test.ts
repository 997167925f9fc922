// The conformance suite on a memdir server over PostgreSQL.
import { databaseUrl } from '@memdir/test-support';
import { memoryStoresConformance } from './conformance-suite.js';

memoryStoresConformance('postgres', () => {
  const url = new URL(databaseUrl());
  url.searchParams.set('schema', 'memdir_memstore_test');
  return url.href;
});
