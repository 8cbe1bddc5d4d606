import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/**
 * The address a request came from: the socket's peer, or behind a reverse proxy (`trustProxy`, TRUST_PROXY) the last
 * X-Forwarded-For entry, which is the one our proxy added (earlier entries are whatever the client sent). Null when
 * neither is known (`app.request()` in tests has no socket). Shared by the API and the dashboard.
 * @example const address = clientAddress(c, deps.config.trustProxy); if (address) await limiter.record(address);
 */
export function clientAddress(c: Context, trustProxy: boolean): string | null {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim();
    if (forwarded) return forwarded;
  }
  try {
    return getConnInfo(c).remote.address ?? null;
  } catch {
    return null; // not served by @hono/node-server (app.request in tests): no socket to ask
  }
}
