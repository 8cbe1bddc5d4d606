import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { CookieOptions } from 'hono/utils/cookie';
import type { DashEnv } from '../env.ts';

export const SESSION_COOKIE = 'tidings_session';
export const PRE_SESSION_COOKIE = 'tidings_csrf';
export const FLASH_COOKIE = 'tidings_flash';

/**
 * HttpOnly, SameSite=Lax, and Secure as configured (`config.dashboardSecureCookies`: production, or an https
 * PUBLIC_DASHBOARD_URL): the attributes of every dashboard cookie. Not decided from the request's Host or scheme,
 * which a proxy may rewrite; plain-http local development keeps working because its configuration says http.
 */
export function cookieOptions(c: Context<DashEnv>, extra: CookieOptions = {}): CookieOptions {
  return { path: '/', httpOnly: true, sameSite: 'Lax', secure: c.var.deps.config.dashboardSecureCookies, ...extra };
}

/** Sets a cookie with the dashboard's attributes. */
export function setDashboardCookie(c: Context<DashEnv>, name: string, value: string, extra: CookieOptions = {}): void {
  setCookie(c, name, value, cookieOptions(c, extra));
}

/** Removes a cookie set with `setDashboardCookie` (same path). */
export function clearDashboardCookie(c: Context<DashEnv>, name: string, path = '/'): void {
  deleteCookie(c, name, cookieOptions(c, { path }));
}

/** How a warning's notice is marked in its cookie, for the layout to colour it amber. */
export const WARNING_MARK = 'warning|';

/** A one-line notice for the next page ("Key disabled"); not secret, shown once. */
export function setFlash(c: Context<DashEnv>, message: string): void {
  setDashboardCookie(c, FLASH_COOKIE, message, { maxAge: 60 });
}

/** The pending notice, removed as it is read. */
export function takeFlash(c: Context): string | null {
  const message = getCookie(c, FLASH_COOKIE);
  if (!message) return null;
  clearDashboardCookie(c, FLASH_COOKIE);
  return message.slice(0, 200);
}
