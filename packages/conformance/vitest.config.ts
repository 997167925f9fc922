// The workspace's one test configuration (vitest.shared.ts), as every package uses it.
export { default } from '../../vitest.shared.js';
