// `memdir serve --http` reached by a client nobody here wrote: the MCP Inspector in its CLI mode
// (`mcp-inspector --cli URL --transport http --header ... --method ...`), run as its users run it.
// A wrong or missing token must be reported as a bad token (not an OAuth flow, not a bare status),
// and a good token must reach the memory tool.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, tempFolder } from './helpers.js';
import { addToken, type HttpServerProcess, startHttpServer } from './http-server.js';

const INSPECTOR_PACKAGE = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/inspector/package.json',
);
const INSPECTOR_BIN = join(dirname(INSPECTOR_PACKAGE), 'cli', 'build', 'cli.js');

interface InspectorRun {
  readonly code: number;
  /** stdout and stderr together, as a person sees them. */
  readonly output: string;
}

function inspector(
  target: HttpServerProcess,
  token: string | undefined,
  method: string[],
): Promise<InspectorRun> {
  const header = token === undefined ? [] : ['--header', `Authorization: Bearer ${token}`];
  const args = [
    INSPECTOR_BIN,
    '--cli',
    target.url.href,
    '--transport',
    'http',
    ...header,
    '--method',
    ...method,
  ];
  return new Promise((resolve) => {
    execFile(process.execPath, args, { env: cliEnv(), timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('the MCP Inspector against memdir serve --http', () => {
  let target: HttpServerProcess;
  let alice: string;

  beforeAll(async () => {
    const made = await tempFolder();
    cleanups.push(made.remove);
    const tokens = join(made.path, 'tokens.json');
    alice = await addToken(tokens, 'alice', 'alice');
    target = await startHttpServer(['--store', `file:${join(made.path, 'store')}`, '--tokens', tokens]);
    cleanups.push(target.stop);
  });

  it('told a wrong token, or none, says the token is the problem and starts no OAuth flow', async () => {
    for (const token of ['memdir_wrong', `${alice}x`, undefined]) {
      const run = await inspector(target, token, ['tools/list']);
      expect(run.code).not.toBe(0);
      expect(run.output).toContain('Unauthorized: the token is missing, wrong, expired or revoked');
      expect(run.output).not.toMatch(/oauth|authorization server|redirect/i);
      expect(run.output).not.toContain(alice);
    }
  });

  it('with a good token lists the memory tool and runs its commands', async () => {
    const listed = await inspector(target, alice, ['tools/list']);
    expect(listed.code).toBe(0);
    const tools = (JSON.parse(listed.output) as { tools: Array<{ name: string }> }).tools;
    expect(tools.map((tool) => tool.name)).toEqual(['memory']);

    const created = await inspector(target, alice, [
      'tools/call',
      '--tool-name',
      'memory',
      '--tool-arg',
      'command=create',
      'path=/memories/inspected.md',
      'file_text=seen by the inspector',
    ]);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.output)).toMatchObject({
      content: [{ type: 'text', text: 'File created successfully at: /memories/inspected.md' }],
    });

    const viewed = await inspector(target, alice, [
      'tools/call',
      '--tool-name',
      'memory',
      '--tool-arg',
      'command=view',
      'path=/memories/inspected.md',
    ]);
    expect(JSON.parse(viewed.output)).toMatchObject({
      content: [
        {
          type: 'text',
          text: "Here's the content of /memories/inspected.md with line numbers:\n     1\tseen by the inspector",
        },
      ],
    });
  });
});
