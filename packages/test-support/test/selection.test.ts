import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getContainerRuntimeClient } from 'testcontainers';
import { afterEach, describe, expect, test } from 'vitest';
import { fromEnvironment, redisUrl, startPrivateRedis, startServers } from '../src/index.js';
import { freePort, tryConnect } from '../src/net.js';
import { runServicesScript } from '../src/services-script.js';
import { connectRedis } from './clients.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A clean environment: no server named, the scripts on a folder and a Redis port of this test's own. */
async function isolatedEnv(): Promise<NodeJS.ProcessEnv> {
  const dir = await mkdtemp(join(tmpdir(), 'memdir-selection-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    MEMDIR_SERVICES_DIR: dir,
    MEMDIR_REDIS_PORT: String(await freePort()),
  };
  cleanups.push(async () => {
    await runServicesScript(['down', 'redis'], { env });
    await rm(dir, { recursive: true, force: true });
  });
  return env;
}

const noEngine = async () => {
  throw new Error('no engine in this test');
};

describe('where the servers come from', () => {
  test('a URL in the environment wins over testcontainers and the scripts', async () => {
    const own = await startPrivateRedis();
    cleanups.push(() => own.close());
    const lines: string[] = [];
    let probed = 0;
    const servers = await startServers(['redis'], {
      // Even when testcontainers is demanded, and the scripts cannot be found.
      env: {
        REDIS_URL: own.url,
        MEMDIR_SERVICES_SCRIPT: '/nowhere/services.sh',
        MEMDIR_SERVERS: 'testcontainers',
      },
      log: (line) => lines.push(line),
      containerRuntime: async () => {
        probed += 1;
      },
    });
    expect(servers.sources).toEqual({ redis: 'environment' });
    expect(servers.env).toEqual({ REDIS_URL: own.url });
    expect(probed).toBe(0);
    expect(lines).toEqual([]);
    await servers.stop();
    // Stopping gives back only what it started: the caller's server still answers.
    expect(await tryConnect({ host: '127.0.0.1', port: own.port })).toBeNull();
  });

  test('with no Docker engine, testcontainers is passed over with its reason and the scripts start the server', async () => {
    const engine = await getContainerRuntimeClient().then(
      () => undefined,
      (error: Error) => error.message,
    );
    const env = await isolatedEnv();
    const lines: string[] = [];
    const servers = await startServers(['redis'], { env, log: (line) => lines.push(line) });
    cleanups.push(() => servers.stop());
    if (engine === undefined) {
      // A machine with Docker (a contributor's laptop): the engine answered, so it is used.
      expect(servers.sources).toEqual({ redis: 'testcontainers' });
    } else {
      expect(servers.sources).toEqual({ redis: 'scripts' });
      expect(lines[0]).toBe(
        `[test-support] testcontainers passed over: ${engine}; using scripts/services.sh`,
      );
      expect(servers.env['REDIS_URL']).toBe(`redis://127.0.0.1:${env['MEMDIR_REDIS_PORT']}`);
    }
    const redis = await connectRedis(servers.env['REDIS_URL']!);
    expect(await redis.ping()).toBe('PONG');
    redis.disconnect();
    await servers.stop();
    if (engine !== undefined) {
      expect((await runServicesScript(['status', 'redis'], { env })).stdout).toBe('redis: stopped\n');
    }
  });

  test('the scripts leave running a server they found running', async () => {
    const env = await isolatedEnv();
    expect((await runServicesScript(['up', 'redis'], { env })).code).toBe(0);
    const servers = await startServers(['redis'], { env, containerRuntime: noEngine, log: () => {} });
    expect(servers.sources).toEqual({ redis: 'scripts' });
    await servers.stop();
    expect((await runServicesScript(['status', 'redis'], { env })).stdout).toBe('redis: running\n');
  });

  test('MEMDIR_SERVERS=scripts does not ask for a container engine', async () => {
    const env = { ...(await isolatedEnv()), MEMDIR_SERVERS: 'scripts' };
    const lines: string[] = [];
    const servers = await startServers(['redis'], {
      env,
      log: (line) => lines.push(line),
      containerRuntime: async () => {
        throw new Error('must not be asked');
      },
    });
    cleanups.push(() => servers.stop());
    expect(servers.sources).toEqual({ redis: 'scripts' });
    expect(lines.some((line) => line.includes('testcontainers'))).toBe(false);
  });

  test('testcontainers demanded without an engine fails the run, saying why and how to give a server', async () => {
    await expect(
      startServers(['redis', 'postgres'], {
        env: { MEMDIR_SERVERS: 'testcontainers', CI: 'true' },
        containerRuntime: noEngine,
      }),
    ).rejects.toThrow(
      "memdir's tests need redis, postgres and could not get them: testcontainers found no Docker engine: " +
        'no engine in this test\nName a running server in the environment (REDIS_URL; DATABASE_URL), ' +
        'start a Docker engine for testcontainers, or run scripts/services.sh up redis postgres to see what ' +
        'fails. (CI is set: a test never skips for want of a server.)',
    );
  });

  test('a URL in the environment that does not answer fails at once, naming the address', async () => {
    const port = await freePort();
    await expect(
      startServers(['redis'], {
        env: { REDIS_URL: `redis://127.0.0.1:${port}` },
        containerRuntime: noEngine,
      }),
    ).rejects.toThrow(
      `the redis server named in the environment does not answer at 127.0.0.1:${port} (connect ECONNREFUSED`,
    );
  });

  test('an S3 endpoint without its bucket or credentials is refused, not replaced', () => {
    expect(() => fromEnvironment('s3', { S3_ENDPOINT: 'http://127.0.0.1:1' })).toThrow(
      'S3_ENDPOINT is set but S3_BUCKET and S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are not',
    );
    expect(
      fromEnvironment('s3', {
        S3_ENDPOINT: 'http://127.0.0.1:1',
        S3_BUCKET: 'b',
        AWS_ACCESS_KEY_ID: 'id',
        AWS_SECRET_ACCESS_KEY: 'secret',
      }),
    ).toEqual({
      S3_ENDPOINT: 'http://127.0.0.1:1',
      S3_REGION: 'us-east-1',
      S3_BUCKET: 'b',
      S3_ACCESS_KEY_ID: 'id',
      S3_SECRET_ACCESS_KEY: 'secret',
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: 'id',
      AWS_SECRET_ACCESS_KEY: 'secret',
      AWS_REGION: 'us-east-1',
    });
  });

  test("the vitest setup's variables reach the test workers", () => {
    expect(process.env['MEMDIR_TEST_SERVERS']).toBe('redis,redis-cluster,postgres,s3');
    expect(redisUrl()).toMatch(/^redis:\/\//);
    for (const name of ['REDIS_CLUSTER_URLS', 'DATABASE_URL', 'S3_ENDPOINT', 'S3_BUCKET', 'AWS_REGION']) {
      expect(process.env[name], name).toBeTruthy();
    }
  });

  test('an unset variable is named with how to get it', () => {
    expect(() => redisUrl({})).toThrow(
      "REDIS_URL is not set: list 'redis' in this package's servers setup (serversSetup in @memdir/test-support), " +
        'or set REDIS_URL to a running server',
    );
  });
});
