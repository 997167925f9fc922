export { type ClusterFailoverOptions, type ClusterNode, clusterFailover, clusterNodes } from './cluster.js';
export { databaseUrl, redisClusterNodes, redisUrl, type S3Server, s3Server } from './env.js';
export {
  type FaultMode,
  type FaultProxy,
  type FaultProxyOptions,
  startFaultProxy,
  type TrafficStats,
} from './fault-proxy.js';
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
export {
  fromEnvironment,
  SERVER_NAMES,
  type ServerName,
  type ServerSource,
  type ServerStrategy,
  type StartedServers,
  type StartServersOptions,
  startServers,
} from './servers.js';
export { serversSetup } from './vitest-setup.js';
