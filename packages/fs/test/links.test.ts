import { createFsStore } from '../src/index.js';
import { describeLinks } from './link-cases.js';

describeLinks(createFsStore);
