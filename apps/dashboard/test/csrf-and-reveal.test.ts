import { csrfTokenFor, isValidCsrfToken, newPreSessionSecret } from '../src/auth/csrf.ts';
import { openReveal, sealReveal } from '../src/auth/reveal.ts';
import { safeNext } from '../src/middleware/require.ts';

describe('CSRF tokens', () => {
  it('are the same for one secret and different for another', () => {
    const secret = newPreSessionSecret();
    expect(csrfTokenFor(secret)).toBe(csrfTokenFor(secret));
    expect(csrfTokenFor(secret)).not.toBe(csrfTokenFor(newPreSessionSecret()));
    expect(csrfTokenFor(secret)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('accept only the token of the secret the browser holds', () => {
    const secret = newPreSessionSecret();
    expect(isValidCsrfToken(secret, csrfTokenFor(secret))).toBe(true);
    expect(isValidCsrfToken(secret, csrfTokenFor(newPreSessionSecret()))).toBe(false);
    expect(isValidCsrfToken(secret, `${csrfTokenFor(secret)}x`)).toBe(false);
    expect(isValidCsrfToken(secret, '')).toBe(false);
    expect(isValidCsrfToken(secret, undefined)).toBe(false);
    expect(isValidCsrfToken(secret, ['a'])).toBe(false);
    expect(isValidCsrfToken(undefined, csrfTokenFor(secret))).toBe(false);
  });
});

describe('a new key on its way to the page', () => {
  const reveal = { id: 'key_1', secret: 'sk_live_abcdefghijklmnopqrstuvwxyz012345', kind: 'created' };

  it('opens under the session that sealed it, and never shows the key in the cookie', () => {
    const sealed = sealReveal('session-a', reveal);
    expect(sealed).not.toContain('sk_live');
    expect(openReveal('session-a', sealed)).toEqual(reveal);
  });

  it('does not open under another session, or once altered', () => {
    const sealed = sealReveal('session-a', reveal);
    expect(openReveal('session-b', sealed)).toBeNull();
    const [iv, tag, body] = sealed.split('.');
    const flipped = Buffer.from(body!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    expect(openReveal('session-a', [iv, tag, flipped.toString('base64url')].join('.'))).toBeNull();
    expect(openReveal('session-a', 'garbage')).toBeNull();
  });
});

describe('cookie and redirect rules', () => {
  it('returns after sign-in only to a path of the dashboard', () => {
    expect(safeNext('/admin/queues')).toBe('/admin/queues');
    expect(safeNext('https://evil.example/')).toBe('/');
    expect(safeNext('//evil.example/')).toBe('/');
    expect(safeNext('/\\evil.example')).toBe('/');
    expect(safeNext(undefined)).toBe('/');
  });
});
