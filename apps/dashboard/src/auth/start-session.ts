import { createSession, SESSION_TTL_MS } from '@tidings/core';
import type { Context } from 'hono';
import type { DashEnv } from '../env.ts';
import { SESSION_COOKIE, setDashboardCookie } from './cookies.ts';

/**
 * Signs the person in: a new session (a new token, so nothing from before sign-in carries over) and its cookie.
 * @example await startSession(c, user.id, invitation.orgId);
 */
export async function startSession(c: Context<DashEnv>, userId: string, orgId?: string): Promise<void> {
  const { token } = await createSession(c.var.deps, userId, orgId);
  setDashboardCookie(c, SESSION_COOKIE, token, { maxAge: SESSION_TTL_MS / 1000 });
}
