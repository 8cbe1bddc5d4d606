import { takeRateLimit } from '@tidings/core';
import type { Config } from '@tidings/config';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { clientAddress } from '../client-address.ts';
import type { AppEnv } from '../env.ts';

/**
 * A limit per client address over a rolling minute for routes without an API key, shared by every API replica (the
 * counter lives in Redis) and taken before the route does any work. `refuse` answers a refused request.
 * @example .use('/u/*', limitPerClient('unsubscribe', (config) => config.broadcasts.unsubscribeRateLimit, tooMany))
 */
export function limitPerClient(name: string, limitOf: (config: Config) => number, refuse: (c: Context<AppEnv>, resetSeconds: number) => Response | Promise<Response>) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const address = clientAddress(c);
    // without a socket there is no address to count against (lumping them together would lock everyone out)
    if (!address) return next();
    const { config } = c.get('deps');
    const result = await takeRateLimit(c.get('deps'), `${config.redisPrefix}:rl:${name}:${address}`, { limit: limitOf(config), windowMs: 60_000 });
    if (result.isAllowed) return next();
    c.header('Retry-After', String(result.resetSeconds));
    return refuse(c, result.resetSeconds);
  });
}
