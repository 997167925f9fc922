import { DEFAULT_PROMPT, runAgent } from './agent.js';

// `pnpm start -- "..."` passes the `--` through; skip it.
const args = process.argv.slice(2);
const prompt = (args[0] === '--' ? args.slice(1) : args).join(' ') || DEFAULT_PROMPT;
await runAgent({ env: process.env, root: './memory', prompt, log: (line) => console.log(line) });
