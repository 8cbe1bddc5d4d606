import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { DashEnv } from '../env.ts';
import { clearDashboardCookie, setDashboardCookie } from './cookies.ts';

// A new secret (an API key, an invitation link) is shown on the page after the redirect, so a reload cannot re-post
// the form. It travels there in a short-lived cookie, encrypted under a key derived from the session token: the server
// stores nothing, and the cookie is useless without the session. The page reads it once and deletes it.

/** What to show once: the secret, the id of the thing it belongs to, and why (`created`, `rotated`, `invited`). */
export type Reveal = { id: string; secret: string; kind: string };

function cipherKey(sessionToken: string): Buffer {
  return createHmac('sha256', sessionToken).update('tidings-dashboard-reveal').digest();
}

/**
 * Encrypts a reveal for the cookie (AES-256-GCM).
 * @example setDashboardCookie(c, REVEAL_COOKIE, sealReveal(token, { id: key.id, secret: key.key, kind: 'created' }), { maxAge: 120 });
 */
export function sealReveal(sessionToken: string, reveal: Reveal): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', cipherKey(sessionToken), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(reveal), 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url')).join('.');
}

/** Decrypts a reveal cookie; null when it was not sealed under this session or was altered. */
export function openReveal(sessionToken: string, sealed: string): Reveal | null {
  const [iv, tag, body] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
  if (!iv || !tag || !body || iv.length !== 12 || tag.length !== 16) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', cipherKey(sessionToken), iv);
    decipher.setAuthTag(tag);
    return JSON.parse(Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8')) as Reveal;
  } catch {
    return null; // wrong session or tampered: show nothing
  }
}

const REVEAL_COOKIE = 'tidings_reveal';

/**
 * Redirects to `path`, where `takeReveal` shows the secret once (a reload shows nothing).
 * @example return showOnceAt(c, '/settings/api-keys', { id: key.id, secret: key.key, kind: 'created' });
 */
export function showOnceAt(c: Context<DashEnv>, path: string, reveal: Reveal) {
  setDashboardCookie(c, REVEAL_COOKIE, sealReveal(c.var.sessionToken!, reveal), { path, maxAge: 120 });
  return c.redirect(path, 303);
}

/** The secret to show on this page, removed as it is read; null when there is none (or it is not this session's). */
export function takeReveal(c: Context<DashEnv>, path: string): Reveal | null {
  const sealed = getCookie(c, REVEAL_COOKIE);
  if (!sealed) return null;
  clearDashboardCookie(c, REVEAL_COOKIE, path);
  return openReveal(c.var.sessionToken!, sealed);
}
