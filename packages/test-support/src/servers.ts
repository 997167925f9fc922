// Getting the servers the tests use: from the environment when it names them, else started by
// testcontainers (containers.ts) or by scripts/services.sh (services-script.ts), and given back
// afterwards. The names of the servers are in server-names.ts.
import { type Endpoint, endpointOf, tryConnect } from './net.js';
import { SERVER_NAMES, type ServerName } from './server-names.js';
import { parseExports, runServicesScript } from './services-script.js';

/** Where a server came from: the caller's environment, a Docker container, or `scripts/services.sh`. */
export type ServerSource = 'environment' | 'testcontainers' | 'scripts';

/** How to get the servers the environment does not name. */
export type ServerStrategy = 'auto' | 'testcontainers' | 'scripts';

export interface StartServersOptions {
  /**
   * The environment that may name servers already running (REDIS_URL...), and the one the scripts
   * run with.
   * @default process.env
   */
  env?: NodeJS.ProcessEnv;
  /**
   * For servers the environment does not name: `auto` tries testcontainers when a Docker engine
   * answers and else the scripts; `testcontainers` or `scripts` uses only that way.
   * @default process.env.MEMDIR_SERVERS, else 'auto'
   */
  strategy?: ServerStrategy;
  /**
   * Receives one line per decision (why testcontainers was passed over, what the scripts started).
   * @default a line on stderr
   */
  log?: (line: string) => void;
  /**
   * Resolves when a container engine answers and rejects with the reason otherwise.
   * @default testcontainers' getContainerRuntimeClient()
   */
  containerRuntime?: () => Promise<unknown>;
}

/** The servers one `startServers` call got, and how to give back the ones it started. */
export interface StartedServers {
  /** The variables the clients read (REDIS_URL, REDIS_CLUSTER_URLS, DATABASE_URL, S3_*, AWS_*). */
  env: Record<string, string>;
  /** Where each server asked for came from. */
  sources: Partial<Record<ServerName, ServerSource>>;
  /** Stops the servers this call started (never one it found running). Safe to call twice. */
  stop(): Promise<void>;
}

const HOW_TO_NAME: Record<ServerName, string> = {
  redis: 'REDIS_URL',
  'redis-cluster': 'REDIS_CLUSTER_URLS (comma-separated redis:// URLs of the masters)',
  postgres: 'DATABASE_URL',
  s3: 'S3_ENDPOINT with S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY',
};

/**
 * Gets the servers `names` lists, in this order: a URL in the environment always wins; else, where
 * a Docker engine answers, testcontainers starts them; else `scripts/services.sh` starts them on
 * loopback (installing them from Debian's packages when it may). A server that cannot be had
 * rejects with a message saying why and how to give one: tests never skip for want of a server.
 */
export async function startServers(
  names: readonly ServerName[],
  options: StartServersOptions = {},
): Promise<StartedServers> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const strategy = options.strategy ?? parseStrategy(env['MEMDIR_SERVERS']);
  const wanted = [...new Set(names)];
  for (const name of wanted) {
    if (!SERVER_NAMES.includes(name))
      throw new Error(`unknown server "${name}" (expected ${SERVER_NAMES.join(', ')})`);
  }

  const result: Record<string, string> = {};
  const sources: Partial<Record<ServerName, ServerSource>> = {};
  const stops: Array<() => Promise<void>> = [];
  const stop = once(async () => {
    for (const stopOne of stops.reverse()) await stopOne();
  });

  try {
    const missing: ServerName[] = [];
    for (const name of wanted) {
      const given = fromEnvironment(name, env);
      if (given) {
        Object.assign(result, given);
        sources[name] = 'environment';
      } else {
        missing.push(name);
      }
    }

    if (missing.length > 0) {
      const runtime =
        strategy === 'scripts' ? undefined : await probeContainerRuntime(options.containerRuntime);
      if (runtime?.ok) {
        const { startContainer } = await import('./containers.js');
        for (const name of missing) {
          const container = await startContainer(name, log);
          stops.push(container.stop);
          Object.assign(result, container.env);
          sources[name] = 'testcontainers';
        }
      } else if (strategy === 'testcontainers') {
        throw new Error(`testcontainers found no Docker engine: ${runtime?.reason}`);
      } else {
        if (runtime)
          log(`[test-support] testcontainers passed over: ${runtime.reason}; using scripts/services.sh`);
        const local = await startWithScripts(missing, env, log);
        stops.push(local.stop);
        Object.assign(result, local.env);
        for (const name of missing) sources[name] = 'scripts';
      }
    }

    for (const name of wanted) await checkAnswers(name, result, sources[name]!);
  } catch (error) {
    await stop().catch(() => {});
    throw new Error(
      `memdir's tests need ${wanted.join(', ')} and could not get ${wanted.length > 1 ? 'them' : 'it'}: ` +
        `${(error as Error).message}\nName a running server in the environment ` +
        `(${wanted.map((name) => HOW_TO_NAME[name]).join('; ')}), start a Docker engine for testcontainers, ` +
        `or run scripts/services.sh up ${wanted.join(' ')} to see what fails.` +
        (env['CI'] ? ' (CI is set: a test never skips for want of a server.)' : ''),
      { cause: error },
    );
  }
  return { env: result, sources, stop };
}

/**
 * The variables that name server `name` in `env`, completed with their defaults; undefined when
 * `env` names no such server. Throws when it names one only in part (an S3 endpoint without a bucket
 * or credentials), rather than starting another server behind the caller's back.
 */
export function fromEnvironment(
  name: ServerName,
  env: NodeJS.ProcessEnv,
): Record<string, string> | undefined {
  const value = (key: string) => (env[key] ? env[key] : undefined);
  switch (name) {
    case 'redis':
      return value('REDIS_URL') ? { REDIS_URL: value('REDIS_URL')! } : undefined;
    case 'redis-cluster':
      return value('REDIS_CLUSTER_URLS') ? { REDIS_CLUSTER_URLS: value('REDIS_CLUSTER_URLS')! } : undefined;
    case 'postgres':
      return value('DATABASE_URL') ? { DATABASE_URL: value('DATABASE_URL')! } : undefined;
    case 's3': {
      const endpoint = value('S3_ENDPOINT');
      if (!endpoint) return undefined;
      const accessKeyId = value('S3_ACCESS_KEY_ID') ?? value('AWS_ACCESS_KEY_ID');
      const secretAccessKey = value('S3_SECRET_ACCESS_KEY') ?? value('AWS_SECRET_ACCESS_KEY');
      const bucket = value('S3_BUCKET');
      const absent = [
        bucket ? undefined : 'S3_BUCKET',
        accessKeyId ? undefined : 'S3_ACCESS_KEY_ID',
        secretAccessKey ? undefined : 'S3_SECRET_ACCESS_KEY',
      ].filter(Boolean);
      if (absent.length > 0)
        throw new Error(
          `S3_ENDPOINT is set but ${absent.join(' and ')} ${absent.length > 1 ? 'are' : 'is'} not`,
        );
      const region = value('S3_REGION') ?? value('AWS_REGION') ?? 'us-east-1';
      return {
        S3_ENDPOINT: endpoint,
        S3_REGION: region,
        S3_BUCKET: bucket!,
        S3_ACCESS_KEY_ID: accessKeyId!,
        S3_SECRET_ACCESS_KEY: secretAccessKey!,
        S3_FORCE_PATH_STYLE: value('S3_FORCE_PATH_STYLE') ?? 'true',
        AWS_ACCESS_KEY_ID: accessKeyId!,
        AWS_SECRET_ACCESS_KEY: secretAccessKey!,
        AWS_REGION: region,
      };
    }
  }
}

function parseStrategy(text: string | undefined): ServerStrategy {
  if (!text) return 'auto';
  if (text === 'auto' || text === 'testcontainers' || text === 'scripts') return text;
  throw new Error(`MEMDIR_SERVERS must be auto, testcontainers or scripts, not "${text}"`);
}

type RuntimeProbe = { ok: true } | { ok: false; reason: string };

async function probeContainerRuntime(probe?: () => Promise<unknown>): Promise<RuntimeProbe> {
  try {
    if (probe) await probe();
    else {
      // Loaded only here: importing testcontainers costs half a second.
      const { getContainerRuntimeClient } = await import('testcontainers');
      await getContainerRuntimeClient();
    }
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: (error as Error).message || String(error) };
  }
}

/** Starts the servers with `scripts/services.sh`; stop() stops those that were not already running. */
async function startWithScripts(
  names: ServerName[],
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<{ env: Record<string, string>; stop: () => Promise<void> }> {
  const status = await runServicesScript(['status', ...names], { env });
  const running = new Set(
    status.stdout
      .split('\n')
      .filter((line) => line.endsWith(': running'))
      .map((line) => line.slice(0, -': running'.length)),
  );
  const started = names.filter((name) => !running.has(name));
  const stop = once(async () => {
    if (started.length === 0) return;
    const down = await runServicesScript(['down', ...started], { env, log });
    if (down.code !== 0)
      throw new Error(`scripts/services.sh down ${started.join(' ')} failed:\n${down.stderr}`);
  });
  const up = await runServicesScript(['up', ...names], { env, log });
  if (up.code !== 0) {
    await stop().catch(() => {});
    throw new Error(`scripts/services.sh up ${names.join(' ')} failed:\n${up.stderr.trim()}`);
  }
  const exports = await runServicesScript(['env', ...names], { env });
  if (exports.code !== 0) throw new Error(`scripts/services.sh env failed:\n${exports.stderr}`);
  return { env: parseExports(exports.stdout), stop };
}

function endpointsOf(name: ServerName, env: Record<string, string>): Endpoint[] {
  switch (name) {
    case 'redis':
      return [endpointOf(env['REDIS_URL']!, 6379)];
    case 'redis-cluster':
      return env['REDIS_CLUSTER_URLS']!.split(',').map((url) => endpointOf(url.trim(), 6379));
    case 'postgres':
      return [endpointOf(env['DATABASE_URL']!, 5432)];
    case 's3':
      return [endpointOf(env['S3_ENDPOINT']!, env['S3_ENDPOINT']!.startsWith('https:') ? 443 : 80)];
  }
}

/** A server that does not take a TCP connection fails here, with its address, not in the first test. */
async function checkAnswers(
  name: ServerName,
  env: Record<string, string>,
  source: ServerSource,
): Promise<void> {
  for (const endpoint of endpointsOf(name, env)) {
    const error = await tryConnect(endpoint, 3000);
    if (error) {
      const where = source === 'environment' ? 'named in the environment' : `started by ${source}`;
      throw new Error(
        `the ${name} server ${where} does not answer at ${endpoint.host}:${endpoint.port} (${error.message})`,
      );
    }
  }
}

function once(action: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => {
    done ??= action();
    return done;
  };
}
