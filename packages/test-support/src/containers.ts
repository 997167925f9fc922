// The testcontainers way to the servers, for a contributor's machine with a Docker engine.
// This machine has none, so this file is checked by the type checker, not by a run: see the README.
import { lookup } from 'node:dns/promises';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { GenericContainer, getContainerRuntimeClient, type StartedTestContainer, Wait } from 'testcontainers';
import { freePort } from './net.js';
import type { ServerName } from './server-names.js';

/** The official images, each overridable (a mirror, another version). */
const IMAGES = {
  redis: process.env['MEMDIR_REDIS_IMAGE'] ?? 'redis:7.2',
  postgres: process.env['MEMDIR_POSTGRES_IMAGE'] ?? 'postgres:15',
  // MinIO, not radosgw: Ceph ships no single-container S3 image. MinIO enforces If-None-Match and
  // If-Match on PUT as radosgw does (and answers If-Match on a missing key with 404, as AWS does).
  s3: process.env['MEMDIR_S3_IMAGE'] ?? 'minio/minio:RELEASE.2025-09-07T16-13-09Z',
};

const S3_USER = 'memdir-access-key';
const S3_PASSWORD = 'memdir-secret-key';
const S3_BUCKET = 'memdir-test';

/** Starts one server in a container; `stop` removes the container. */
export async function startContainer(
  name: ServerName,
  log: (line: string) => void,
): Promise<{ env: Record<string, string>; stop: () => Promise<void> }> {
  const started = Date.now();
  const { env, container } = await START[name]();
  log(`[test-support] ${name} started by testcontainers in ${Date.now() - started} ms`);
  return {
    env,
    stop: async () => {
      await container.stop({ remove: true });
    },
  };
}

const START: Record<
  ServerName,
  () => Promise<{ env: Record<string, string>; container: StartedTestContainer }>
> = {
  async redis() {
    const container = await new GenericContainer(IMAGES.redis)
      .withCommand(['redis-server', '--save', '', '--appendonly', 'no', '--enable-debug-command', 'yes'])
      .withExposedPorts(6379)
      .withWaitStrategy(Wait.forLogMessage('Ready to accept connections'))
      .start();
    return {
      container,
      env: { REDIS_URL: `redis://${container.getHost()}:${container.getMappedPort(6379)}` },
    };
  },

  // One container runs the six nodes. A Cluster tells its clients where the nodes are, so each node
  // listens inside on the same port the host publishes, and announces the host's address: the
  // client reaches every node, and the nodes reach each other on the container's own loopback.
  async 'redis-cluster'() {
    const host = await runtimeHostAddress();
    const ports: number[] = [];
    while (ports.length < 6) {
      const port = await freePort();
      if (port < 55535 && !ports.includes(port)) ports.push(port);
    }
    const node = (port: number) =>
      `redis-server --port ${port} --cluster-enabled yes --cluster-config-file nodes-${port}.conf ` +
      `--cluster-node-timeout 3000 --cluster-announce-ip ${host} --save '' --appendonly no ` +
      `--enable-debug-command yes --daemonize yes --logfile /tmp/redis-${port}.log`;
    const script = [
      ...ports.map(node),
      `until ${ports.map((port) => `redis-cli -p ${port} ping >/dev/null`).join(' && ')}; do sleep 0.1; done`,
      `redis-cli --cluster create ${ports.map((port) => `${host}:${port}`).join(' ')} --cluster-replicas 1 --cluster-yes`,
      `until redis-cli -p ${ports[0]} cluster info | grep -q cluster_state:ok; do sleep 0.1; done`,
      'echo memdir-cluster-ready',
      'exec sleep infinity',
    ].join('\n');
    const container = await new GenericContainer(IMAGES.redis)
      .withCommand(['sh', '-c', script])
      .withExposedPorts(...ports.map((port) => ({ container: port, host: port })))
      .withWaitStrategy(Wait.forLogMessage('memdir-cluster-ready'))
      .withStartupTimeout(120_000)
      .start();
    const masters = ports.slice(0, 3).map((port) => `redis://${container.getHost()}:${port}`);
    return { container, env: { REDIS_CLUSTER_URLS: masters.join(',') } };
  },

  async postgres() {
    const container = await new GenericContainer(IMAGES.postgres)
      .withEnvironment({ POSTGRES_PASSWORD: 'memdir', POSTGRES_DB: 'memdir' })
      .withCommand([
        'postgres',
        ...['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
        ...['-c', 'max_connections=200', '-c', 'shared_preload_libraries=pg_stat_statements'],
      ])
      .withCopyContentToContainer([
        {
          content: 'CREATE EXTENSION pg_stat_statements;\n',
          target: '/docker-entrypoint-initdb.d/memdir.sql',
        },
      ])
      .withExposedPorts(5432)
      // The image starts the server twice (once to run the init scripts); the second is the one.
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .start();
    const url = `postgres://postgres:memdir@${container.getHost()}:${container.getMappedPort(5432)}/memdir`;
    return { container, env: { DATABASE_URL: url } };
  },

  async s3() {
    const container = await new GenericContainer(IMAGES.s3)
      .withEnvironment({ MINIO_ROOT_USER: S3_USER, MINIO_ROOT_PASSWORD: S3_PASSWORD })
      .withCommand(['server', '/data'])
      .withExposedPorts(9000)
      .withWaitStrategy(Wait.forHttp('/minio/health/ready', 9000))
      .start();
    const endpoint = `http://${container.getHost()}:${container.getMappedPort(9000)}`;
    const client = new S3Client({
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: S3_USER, secretAccessKey: S3_PASSWORD },
    });
    try {
      await client.send(new CreateBucketCommand({ Bucket: S3_BUCKET }));
    } finally {
      client.destroy();
    }
    return {
      container,
      env: {
        S3_ENDPOINT: endpoint,
        S3_REGION: 'us-east-1',
        S3_BUCKET,
        S3_ACCESS_KEY_ID: S3_USER,
        S3_SECRET_ACCESS_KEY: S3_PASSWORD,
        S3_FORCE_PATH_STYLE: 'true',
        AWS_ACCESS_KEY_ID: S3_USER,
        AWS_SECRET_ACCESS_KEY: S3_PASSWORD,
        AWS_REGION: 'us-east-1',
      },
    };
  },
};

/** The IP address at which this machine reaches the engine's published ports. */
async function runtimeHostAddress(): Promise<string> {
  const { host } = (await getContainerRuntimeClient()).info.containerRuntime;
  if (host === 'localhost') return '127.0.0.1';
  return (await lookup(host)).address;
}
