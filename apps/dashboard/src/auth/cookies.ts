import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { CookieOptions } from 'hono/utils/cookie';

export const SESSION_COOKIE = 'tidings_session';
export const PRE_SESSION_COOKIE = 'tidings_csrf';
export const FLASH_COOKIE = 'tidings_flash';

const LOCALHOST_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Cookies are `Secure` everywhere except plain-http localhost, where a browser would drop them (local development
 * and the browser tests). Behind a TLS proxy the host is the public name, so they stay Secure.
 */
export function isPlainHttpLocalhost(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  return protocol === 'http:' && LOCALHOST_NAMES.has(hostname);
}

/** HttpOnly, SameSite=Lax, Secure (unless plain-http localhost): the attributes of every dashboard cookie. */
export function cookieOptions(c: Context, extra: CookieOptions = {}): CookieOptions {
  return { path: '/', httpOnly: true, sameSite: 'Lax', secure: !isPlainHttpLocalhost(c.req.url), ...extra };
}

/** Sets a cookie with the dashboard's attributes. */
export function setDashboardCookie(c: Context, name: string, value: string, extra: CookieOptions = {}): void {
  setCookie(c, name, value, cookieOptions(c, extra));
}

/** Removes a cookie set with `setDashboardCookie` (same path). */
export function clearDashboardCookie(c: Context, name: string, path = '/'): void {
  deleteCookie(c, name, cookieOptions(c, { path }));
}

/** A one-line notice for the next page ("Key disabled"); not secret, shown once. */
export function setFlash(c: Context, message: string): void {
  setDashboardCookie(c, FLASH_COOKIE, message, { maxAge: 60 });
}

/** The pending notice, removed as it is read. */
export function takeFlash(c: Context): string | null {
  const message = getCookie(c, FLASH_COOKIE);
  if (!message) return null;
  clearDashboardCookie(c, FLASH_COOKIE);
  return message.slice(0, 200);
}
