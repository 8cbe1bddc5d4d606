import type { MiddlewareHandler } from 'hono';
import { canManage, type DashEnv } from '../env.ts';
import { renderError } from '../views/render.tsx';

// Any base works: only whether the result stays on it matters.
const SAME_ORIGIN_BASE = 'http://dashboard.invalid';

/**
 * A path inside the dashboard to return to after signing in; anything else becomes `/`. Browsers drop tabs and
 * newlines from a URL and read `\\` as `/`, so `/\t/host` would reach another host: control characters and
 * backslashes are refused outright, and what remains must resolve to this origin. The answer is the normalised,
 * percent-encoded path (always safe in a Location header).
 * @example safeNext('/messages?status=failed') // '/messages?status=failed'; safeNext('/%09/evil.example') // '/'
 */
export function safeNext(next: string | undefined | null): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point of this check
  if (!next?.startsWith('/') || /[\u0000-\u001f\u007f\\]/.test(next)) return '/';
  let url: URL;
  try {
    url = new URL(next, SAME_ORIGIN_BASE);
  } catch {
    return '/';
  }
  if (url.origin !== SAME_ORIGIN_BASE) return '/';
  const path = `${url.pathname}${url.search}${url.hash}`;
  // `/.//host` normalises into `//host`, which a browser reads as another site
  return path.startsWith('//') ? '/' : path;
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
