import { randomBytes } from 'node:crypto';
import { serveHttp } from '@tidings/testing';
import { setupApi } from './setup.ts';

const guessedKey = () => `sk_live_${randomBytes(24).toString('base64url')}`;

describe('failed authentication per client address', () => {
  it('answers 429 with Retry-After past AUTH_FAILURE_LIMIT failures from one socket address, whatever X-Forwarded-For says', async () => {
    const t = setupApi({ AUTH_FAILURE_LIMIT: '5' });
    const server = await serveHttp(t.app.fetch);
    try {
      const { key } = await t.org();
      // without TRUST_PROXY a forged X-Forwarded-For changes nothing: the socket's address is counted
      const attempt = (i: number, bearer = guessedKey()) =>
        fetch(`${server.url}/v1/api-keys`, { headers: { authorization: `Bearer ${bearer}`, 'x-forwarded-for': `198.51.100.${i}` } });
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await attempt(i)).status);
      expect(statuses).toEqual([401, 401, 401, 401, 401]);

      const limited = await attempt(6);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      const body = await limited.json();
      expect(body.code).toBe('TOO_MANY_REQUESTS');
      expect(body.message).toMatch(/^Too many failed authentications from this address; retry in \d+ s$/);
      // the address is refused for the rest of the minute, before any key is looked up
      expect((await attempt(7, key)).status).toBe(429);
      const missingHeader = await fetch(`${server.url}/v1/api-keys`);
      expect(missingHeader.status).toBe(429);
    } finally {
      await server.close();
      await t.close();
    }
  });

  it('behind a proxy (TRUST_PROXY) counts the last X-Forwarded-For address, so other clients are not affected', async () => {
    const t = setupApi({ AUTH_FAILURE_LIMIT: '3', TRUST_PROXY: 'true' });
    try {
      const { api, key } = await t.org();
      // the client may send its own X-Forwarded-For; the proxy appends the address it saw, the last one
      const from = (address: string, bearer = guessedKey()) =>
        t.anonymous.get('/v1/api-keys', { authorization: `Bearer ${bearer}`, 'x-forwarded-for': `10.0.0.${Math.floor(Math.random() * 255)}, ${address}` });
      for (let i = 0; i < 3; i++) expect((await from('203.0.113.7')).status).toBe(401);
      const limited = await from('203.0.113.7');
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(limited.body.code).toBe('TOO_MANY_REQUESTS');

      expect((await from('203.0.113.8')).status).toBe(401);
      expect((await from('203.0.113.8', key)).status).toBe(200);
      expect((await api.get('/v1/api-keys')).status).toBe(200); // no address at all (in-process request): not limited
    } finally {
      await t.close();
    }
  });

  it('shares the count between replicas through Redis', async () => {
    const one = setupApi({ AUTH_FAILURE_LIMIT: '4', TRUST_PROXY: 'true' });
    const two = setupApi({ AUTH_FAILURE_LIMIT: '4', TRUST_PROXY: 'true', REDIS_PREFIX: one.deps.config.redisPrefix });
    try {
      const headers = () => ({ authorization: `Bearer ${guessedKey()}`, 'x-forwarded-for': '203.0.113.9' });
      for (const replica of [one, two, one, two]) expect((await replica.anonymous.get('/v1/api-keys', headers())).status).toBe(401);
      expect((await two.anonymous.get('/v1/api-keys', headers())).status).toBe(429);
      expect((await one.anonymous.get('/v1/api-keys', headers())).status).toBe(429);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});
