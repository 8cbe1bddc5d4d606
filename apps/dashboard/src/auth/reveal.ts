import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

// A new API key is shown on the page after the redirect (so a reload cannot re-post the form). It travels there in a
// short-lived cookie, encrypted under a key derived from the session token: the server stores nothing, and the
// cookie is useless without the session. The page reads it once and deletes it.

export type Reveal = { keyId: string; key: string; kind: 'created' | 'rotated' };

function cipherKey(sessionToken: string): Buffer {
  return createHmac('sha256', sessionToken).update('tidings-dashboard-reveal').digest();
}

/**
 * Encrypts a reveal for the cookie (AES-256-GCM).
 * @example setDashboardCookie(c, REVEAL_COOKIE, sealReveal(token, { keyId, key, kind: 'created' }), { maxAge: 120 });
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
