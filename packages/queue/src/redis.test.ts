import { Cluster } from 'ioredis';
import { bullPrefix } from './queues.ts';
import { createRedis, isClusterUrl, parseClusterUrl } from './redis.ts';

describe('Redis connections', () => {
  it('reads the seed nodes and credentials of a cluster URL', () => {
    expect(isClusterUrl('redis://127.0.0.1:6379')).toBe(false);
    expect(isClusterUrl('redis+cluster://127.0.0.1:7100')).toBe(true);
    expect(parseClusterUrl('redis+cluster://127.0.0.1:7100,redis-b:7101/')).toEqual({
      nodes: [
        { host: '127.0.0.1', port: 7100 },
        { host: 'redis-b', port: 7101 },
      ],
      options: {},
    });
    expect(parseClusterUrl('rediss+cluster://app:p%40ss@redis-a:6379').options).toEqual({ tls: {}, username: 'app', password: 'p@ss' });
    expect(() => parseClusterUrl('redis+cluster://redis-a:port')).toThrow(/redis-a:port/);
  });

  it('opens a cluster client for a cluster URL and one connection otherwise', () => {
    const cluster = createRedis('redis+cluster://127.0.0.1:7199', { lazyConnect: true });
    const single = createRedis('redis://127.0.0.1:6379', { lazyConnect: true });
    expect(cluster).toBeInstanceOf(Cluster);
    expect([cluster.isCluster, single.isCluster]).toEqual([true, false]);
    cluster.disconnect();
    single.disconnect();
  });

  it('hash-tags each queue on a cluster and keeps the earlier key names on one Redis', () => {
    expect(bullPrefix('tidings', 'email', true)).toBe('tidings:bull:{email}');
    expect(bullPrefix('tidings', 'email', false)).toBe('tidings:bull');
  });
});
