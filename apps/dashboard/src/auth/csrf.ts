import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The CSRF token of a form, bound to a secret the browser holds in an HttpOnly cookie: the session token once
 * signed in, a random pre-session value before (sign-in, sign-up). A page on another site can neither read the
 * cookie nor compute the token, so it cannot forge a form post; nothing is stored on the server.
 * @example <input type="hidden" name="_csrf" value={csrfTokenFor(sessionToken)} />
 */
export function csrfTokenFor(secret: string): string {
  return createHmac('sha256', secret).update('tidings-dashboard-csrf').digest('base64url');
}

/** Whether `token` (from a form field or header) is the CSRF token of `secret`, compared in constant time. */
export function isValidCsrfToken(secret: string | undefined, token: unknown): boolean {
  if (!secret || typeof token !== 'string' || token.length === 0) return false;
  const expected = Buffer.from(csrfTokenFor(secret));
  const actual = Buffer.from(token);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** A new random pre-session secret for the CSRF cookie of a signed-out browser. */
export function newPreSessionSecret(): string {
  return randomBytes(32).toString('base64url');
}
