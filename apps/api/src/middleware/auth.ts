import { AppError, ORGANIZATION_SUSPENDED_MESSAGE, type AuthFailureLimiter, type Authenticate } from '@tidings/core';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { clientAddress } from '../client-address.ts';
import type { AppEnv } from '../env.ts';

function tooManyFailures(c: Context<AppEnv>, retryAfterSeconds: number): AppError {
  c.header('Retry-After', String(retryAfterSeconds));
  return new AppError('TOO_MANY_REQUESTS', `Too many failed authentications from this address; retry in ${retryAfterSeconds} s`);
}

/**
 * Bearer auth: the organization comes from the key and nothing else. Failed attempts are counted per client address
 * (`AUTH_FAILURE_LIMIT` a minute): past the limit the address gets 429 without its keys being looked up. The request's
 * deps carry the key as the audit log's actor.
 * @example v1.use('*', auth(createAuthenticator(deps), createAuthFailureLimiter(deps)));
 */
export function auth(authenticate: Authenticate, failures: AuthFailureLimiter) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const address = clientAddress(c);
    const blockedSeconds = address ? failures.blockedSeconds(address) : 0;
    if (blockedSeconds > 0) throw tooManyFailures(c, blockedSeconds);
    const refuse = async (message: string) => {
      // without an address there is nothing to count against (lumping them together would lock everyone out)
      const retryAfterSeconds = address ? await failures.record(address) : 0;
      return retryAfterSeconds > 0 ? tooManyFailures(c, retryAfterSeconds) : new AppError('UNAUTHORIZED', message);
    };
    const header = c.req.header('authorization');
    if (!header) throw await refuse('Missing Authorization header: send "Authorization: Bearer <API key>"');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw await refuse('Malformed Authorization header: expected "Bearer <API key>"');
    const principal = await authenticate(match[1]!);
    if (!principal) throw await refuse('Invalid API key: unknown, disabled, rotated out or deleted');
    if (principal.isOrgSuspended) throw new AppError('FORBIDDEN', ORGANIZATION_SUSPENDED_MESSAGE);
    c.set('principal', principal);
    c.set('orgId', principal.orgId);
    // what this request changes is audited as the key's doing, from this address, in the key's mode
    c.set('deps', { ...c.get('deps'), actor: { type: 'apiKey', id: principal.keyId, ip: address, mode: principal.mode } });
    await next();
  });
}
