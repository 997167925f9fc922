// The memory stores API on the in-memory store, through Anthropic's SDK against `memdir serve --http`.
import { apiSuite } from './api-suite.js';

apiSuite('memory', () => 'memory:');
