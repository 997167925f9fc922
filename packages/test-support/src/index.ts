// @memdir/test-support: the real servers the tests of the adapters and the bench run against, and
// tools to trouble them. servers.ts gets the servers (the environment, testcontainers in
// containers.ts, or scripts/services.sh through services-script.ts) and vitest-setup.ts wraps it
// for vitest; env.ts reads where they are; private-servers.ts starts a test's own; memdir-server.ts a
// real `memdir serve --http` (the workspace's CLI); fault-proxy.ts,
// round-trip-counter.ts and cluster.ts trouble, count and fail them over; wave3-session.ts is the
// session the adapters' wave 3 upgrade fixtures were written with. Private to the workspace.
export { type ClusterFailoverOptions, type ClusterNode, clusterFailover, clusterNodes } from './cluster.js';
export { databaseUrl, redisClusterNodes, redisUrl, type S3Server, s3Server } from './env.js';
export {
  type FaultMode,
  type FaultProxy,
  type FaultProxyOptions,
  startFaultProxy,
  type TrafficStats,
} from './fault-proxy.js';
export { type Impostor, startImpostor } from './impostor.js';
export {
  MEMDIR_BIN,
  type MemdirServer,
  type MemdirServerOptions,
  memdirChildEnv,
  startMemdirServer,
} from './memdir-server.js';
export { type Endpoint, freePort } from './net.js';
export {
  type PrivatePostgresOptions,
  type PrivateRedisOptions,
  type PrivateServer,
  type PrivateServerOptions,
  startPrivatePostgres,
  startPrivateRedis,
} from './private-servers.js';
export { type RoundTripCounter, startRoundTripCounter } from './round-trip-counter.js';
export { SERVER_NAMES, type ServerName } from './server-names.js';
export {
  fromEnvironment,
  type ServerSource,
  type ServerStrategy,
  type StartedServers,
  type StartServersOptions,
  startServers,
} from './servers.js';
export { serversSetup } from './vitest-setup.js';
export { WAVE3_ACTOR, WAVE3_FILES, WAVE3_NAMESPACE, WAVE3_SESSION, WAVE3_VERSIONS } from './wave3-session.js';
