// The memory stores API on S3.
import { s3Server } from '@memdir/test-support';
import { apiSuite } from './api-suite.js';

apiSuite('s3', () => {
  const { bucket, clientConfig } = s3Server();
  const endpoint = encodeURIComponent(String(clientConfig.endpoint));
  return `s3://${bucket}/memdir-api-test?endpoint=${endpoint}&region=${clientConfig.region}&forcePathStyle=true`;
});
