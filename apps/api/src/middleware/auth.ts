import { AppError, type Authenticate } from '@tidings/core';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env.ts';

/**
 * Bearer auth: the organization comes from the key and nothing else.
 * @example v1.use('*', auth(createAuthenticator(deps)));
 */
export function auth(authenticate: Authenticate) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const header = c.req.header('authorization');
    if (!header) throw new AppError('UNAUTHORIZED', 'Missing Authorization header: send "Authorization: Bearer <API key>"');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw new AppError('UNAUTHORIZED', 'Malformed Authorization header: expected "Bearer <API key>"');
    const principal = await authenticate(match[1]!);
    if (!principal) throw new AppError('UNAUTHORIZED', 'Invalid API key: unknown, disabled, rotated out or deleted');
    if (principal.isOrgSuspended) throw new AppError('FORBIDDEN', 'This organization is suspended');
    c.set('principal', principal);
    c.set('orgId', principal.orgId);
    await next();
  });
}
