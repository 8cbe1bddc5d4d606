import { clientAddress as addressOf } from '@tidings/runtime';
import type { Context } from 'hono';
import type { AppEnv } from './env.ts';

/**
 * The address a request came from, under the API's TRUST_PROXY setting (see the runtime's `clientAddress`).
 * @example const address = clientAddress(c); if (address) await limiter.record(address);
 */
export function clientAddress(c: Context<AppEnv>): string | null {
  return addressOf(c, c.get('deps').config.trustProxy);
}
