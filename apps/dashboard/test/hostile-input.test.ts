// Input Postgres cannot store or compare, sent to the dashboard's pages: never a 500, nothing written.
import { createTestDeps } from '@tidings/testing';
import { createDashboard } from '../src/app.ts';
import { signedIn } from './signed-in.ts';

const deps = createTestDeps();
const app = createDashboard(deps);
afterAll(() => deps.close());

const NUL = encodeURIComponent('a\u0000b');
const cursorOf = (text: string) => Buffer.from(text).toString('base64url');

describe('the dashboard and input Postgres cannot hold', () => {
  it('detail routes with a NUL id are 404', async () => {
    const { browser } = await signedIn(app, deps, 'owner');
    for (const base of ['/messages', '/sandbox', '/webhooks', '/domains', '/phone-numbers', '/settings/api-keys']) {
      const res = await browser.get(`${base}/${NUL}`);
      expect({ base, status: res.status }).toEqual({ base, status: 404 });
    }
  });

  it('list filters and cursors with NUL, year 0000 or a forged date are a page, not a 500', async () => {
    const { browser } = await signedIn(app, deps, 'owner');
    const queries = [
      `to=${NUL}`,
      `status=${NUL}`,
      'since=0000-01-01',
      'until=0000-12-31',
      `cursor=${cursorOf('0000-01-01T00:00:00.000Z|msg_x')}`,
      `cursor=${cursorOf('-271821-04-20T00:00:00.000Z|msg_x')}`,
      `cursor=${cursorOf('2026-01-01T00:00:00.000Z|msg_\u0000')}`,
    ];
    for (const query of queries) {
      for (const base of ['/messages', '/sandbox']) {
        const res = await browser.get(`${base}?${query}`);
        expect({ query, base, status: res.status < 500 }).toEqual({ query, base, status: true });
      }
    }
  });

  it('form fields with NUL are a 400 naming the field, and nothing is written', async () => {
    const { orgId, browser } = await signedIn(app, deps, 'owner');
    const keysBefore = await deps.db.apiKey.count({ where: { orgId } });
    const created = await browser.post('/settings/api-keys', { name: 'a\u0000b', permission: 'full' });
    expect(created.status).toBe(400);
    expect(created.html).toContain('name: must not contain the NUL character');
    const webhook = await browser.post('/webhooks', { url: 'https://example.com/h', events: ['message.sent'], description: 'x\u0000' });
    expect(webhook.status).toBe(400);
    expect(await deps.db.apiKey.count({ where: { orgId } })).toBe(keysBefore);
    expect(await deps.db.webhook.count({ where: { orgId } })).toBe(0);
  });
});
