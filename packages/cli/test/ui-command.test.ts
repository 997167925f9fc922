// `memdir ui --store URL` in a real process: the inspector on loopback, signed in with the one-time
// token it prints, showing the store's files; a non-loopback address is refused.
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, runCli, tempFolder } from './helpers.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('memdir ui', () => {
  it('serves the inspector on loopback with a one-time token, and stops on SIGTERM', async () => {
    const folder = await tempFolder();
    cleanups.push(folder.remove);
    const created = await runCli(
      ['create', '/memories/hello.md', '--text', 'hi', '--store', 'file:./data', '--namespace', 'team-a'],
      { cwd: folder.path },
    );
    expect(created.code, created.stderr).toBe(0);
    const child = spawn(process.execPath, [BIN, 'ui', '--store', 'file:./data', '--namespace', 'team-a'], {
      cwd: folder.path,
      env: cliEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    cleanups.push(async () => {
      child.kill('SIGKILL');
    });
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no token within 15 s:\n${stderr}`)), 15_000);
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        if (stderr.includes('one-time token')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const origin = /is on (http:\/\/127\.0\.0\.1:\d+)\/ui\n/.exec(stderr)?.[1];
    const token = /token \(it ends with this process\): (memdir_ui_[A-Za-z0-9_-]{32})\n/.exec(stderr)?.[1];
    expect(origin).toBeDefined();
    expect(token).toBeDefined();
    const signIn = await fetch(`${origin}/ui/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: origin! },
      body: new URLSearchParams({ token: token! }).toString(),
    });
    expect(signIn.status).toBe(303);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const tree = await fetch(`${origin}/ui/tree?ns=team-a&path=/memories`, { headers: { cookie } });
    expect(tree.status).toBe(200);
    expect(await tree.text()).toContain('>hello.md</a>');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toContain('memdir: SIGTERM: stopped\n');
  });

  it('refuses an address beyond loopback', async () => {
    const result = await runCli(['ui', '--listen', '0.0.0.0:0', '--store', 'memory:']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'ui: --listen must be on loopback (127.0.0.1, ::1, localhost), got 0.0.0.0',
    );
  });
});
