import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import type { AppEnv } from './env.ts';

/**
 * The address a request came from: the socket's peer, or behind a reverse proxy (`TRUST_PROXY`) the last
 * X-Forwarded-For entry, which is the one our proxy added (earlier entries are whatever the client sent).
 * Null when neither is known (`app.request()` in tests has no socket).
 * @example const address = clientAddress(c); if (address) await limiter.record(address);
 */
export function clientAddress(c: Context<AppEnv>): string | null {
  if (c.get('deps').config.trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim();
    if (forwarded) return forwarded;
  }
  try {
    return getConnInfo(c).remote.address ?? null;
  } catch {
    return null; // not served by @hono/node-server (app.request in tests): no socket to ask
  }
}
