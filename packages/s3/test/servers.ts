import { serversSetup } from '@memdir/test-support';

export default serversSetup(['s3']);
