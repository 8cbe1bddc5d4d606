import IORedis, { Cluster, type ClusterNode, type RedisOptions, type Redis as SingleRedis } from 'ioredis';

/** A connection to one Redis or to a Redis Cluster: both take the same commands, scripts and pub/sub. */
export type Redis = SingleRedis | Cluster;

const CLUSTER_SCHEMES = ['redis+cluster:', 'rediss+cluster:'];

/** Whether `url` names a Redis Cluster (`redis+cluster://host:port,host:port`) rather than one Redis. */
export function isClusterUrl(url: string): boolean {
  return CLUSTER_SCHEMES.some((scheme) => url.startsWith(`${scheme}//`));
}

/**
 * The seed nodes and credentials of a cluster URL: `redis+cluster://[user:password@]host:port,host:port` (one
 * reachable node is enough; the rest of the cluster is discovered), `rediss+cluster://` for TLS.
 * @example parseClusterUrl('redis+cluster://:pw@10.0.0.1:6379,10.0.0.2:6379') // { nodes: [...2], options: { password: 'pw' } }
 */
export function parseClusterUrl(url: string): { nodes: ClusterNode[]; options: RedisOptions } {
  const scheme = url.slice(0, url.indexOf('//'));
  let rest = url.slice(scheme.length + 2).replace(/\/.*$/, '');
  const options: RedisOptions = scheme === 'rediss+cluster:' ? { tls: {} } : {};
  const at = rest.lastIndexOf('@');
  if (at !== -1) {
    const [username, password] = rest.slice(0, at).split(':');
    if (username) options.username = decodeURIComponent(username);
    if (password) options.password = decodeURIComponent(password);
    rest = rest.slice(at + 1);
  }
  const nodes = rest.split(',').map((hostPort) => {
    const colon = hostPort.lastIndexOf(':');
    const port = colon === -1 ? 6379 : Number(hostPort.slice(colon + 1));
    const host = colon === -1 ? hostPort : hostPort.slice(0, colon);
    if (!host || !Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`not a host:port in a Redis Cluster URL: ${hostPort}`);
    return { host, port };
  });
  return { nodes, options };
}

/**
 * Opens a Redis connection fit for BullMQ (which needs `maxRetriesPerRequest: null`) and for plain commands: a
 * Cluster client when `url` names a cluster (see `parseClusterUrl`), else one connection.
 * @example const redis = createRedis(config.redisUrl);
 */
export function createRedis(url: string, options: { lazyConnect?: boolean } = {}): Redis {
  const lazyConnect = options.lazyConnect ?? false;
  if (!isClusterUrl(url)) return new IORedis(url, { maxRetriesPerRequest: null, lazyConnect });
  const { nodes, options: redisOptions } = parseClusterUrl(url);
  // While a master restarts its slots answer CLUSTERDOWN or refuse connections: commands wait and try again
  // rather than fail, as they do on one Redis that reconnects.
  return new Cluster(nodes, {
    lazyConnect,
    redisOptions: { ...redisOptions, maxRetriesPerRequest: null },
    retryDelayOnClusterDown: 300,
    retryDelayOnFailover: 300,
    clusterRetryStrategy: (times) => Math.min(100 * times, 2000),
  });
}

/** A new connection like `redis` (to the same Redis or cluster), for a subscriber or a blocking command. */
export function duplicateRedis(redis: Redis): Redis {
  return redis instanceof Cluster ? redis.duplicate() : redis.duplicate();
}
