import type { MiddlewareHandler } from 'hono';
import { canManage, type DashEnv } from '../env.ts';
import { renderError } from '../views/render.tsx';

/** A path inside the dashboard to return to after signing in; anything else (another site, `//host`) becomes `/`. */
export function safeNext(next: string | undefined | null): string {
  return next?.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}

/** Sends a visitor to the sign-in page, coming back here afterwards. */
export const requireSignedIn: MiddlewareHandler<DashEnv> = async (c, next) => {
  if (c.var.signedIn) return next();
  const url = new URL(c.req.url);
  const back = c.req.method === 'GET' ? `${url.pathname}${url.search}` : '/';
  return c.redirect(`/sign-in?next=${encodeURIComponent(back)}`, 303);
};

/** Refuses (403) people who only read in the current organization. */
export const requireManager: MiddlewareHandler<DashEnv> = async (c, next) => {
  if (canManage(c.var.signedIn)) return next();
  return renderError(c, 403, 'Not allowed', 'Only owners and operators of this organization can change this.');
};
