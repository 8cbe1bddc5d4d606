// The Suppressions page through HTTP (app.request) over real Postgres and Redis.
import { createSuppression } from '@tidings/core';
import { createTestDeps } from '@tidings/testing';
import { createDashboard } from '../src/app.ts';
import { signedIn } from './signed-in.ts';

const deps = createTestDeps();
const app = createDashboard(deps);
afterAll(() => deps.close());

const owner = () => signedIn(app, deps, 'owner');
const suppressed = async (orgId: string) => (await deps.db.suppression.findMany({ where: { orgId }, orderBy: { recipient: 'asc' } })).map((s) => `${s.recipient} ${s.reason}`);

describe('suppressions page', () => {
  it('adds an address by hand, filters by reason and lifts one after asking', async () => {
    const { browser, orgId } = await owner();
    expect((await browser.get('/suppressions')).html).toContain('No suppressions');
    const added = await browser.post('/suppressions', { channelType: 'email', address: ' Ada@Example.com ' });
    expect(added).toMatchObject({ status: 303, location: '/suppressions' });
    await deps.db.suppression.create({ data: { orgId, recipient: '+14155550123', reason: 'stopped' } });
    const all = await browser.get('/suppressions');
    expect(all.html).toContain('ada@example.com is suppressed');
    expect(all.html).toContain('Texted STOP');

    const stopped = await browser.get('/suppressions?reason=stopped');
    expect(stopped.html).toContain('+14155550123');
    expect(stopped.html).not.toContain('<td class="name">ada@example.com');
    expect((await browser.get('/suppressions?channelType=email')).html).not.toContain('<td class="name">+14155550123');
    expect((await browser.get('/suppressions?reason=bounced')).html).toContain('No suppressions match these filters');

    const again = await browser.post('/suppressions', { channelType: 'email', address: 'ada@example.com' });
    expect(again.status).toBe(400);
    expect(again.html).toContain('ada@example.com is already suppressed');
    const bad = await browser.post('/suppressions', { channelType: 'sms', address: 'not a number' });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('Must be a valid E.164 phone number for channelType sms.');

    const row = await deps.db.suppression.findFirstOrThrow({ where: { orgId, recipient: '+14155550123' } });
    const confirm = await browser.get(`/suppressions/${row.id}/lift`);
    expect(confirm.html).toContain('texted STOP');
    expect(await browser.post(`/suppressions/${row.id}/lift`)).toMatchObject({ status: 303, location: '/suppressions' });
    expect((await browser.get('/suppressions')).html).toContain('+14155550123 is no longer suppressed.');
    expect(await suppressed(orgId)).toEqual(['ada@example.com manual']);
  });

  it('a bad filter is a 400 that says why, not a 500', async () => {
    const { browser } = await owner();
    const res = await browser.get('/suppressions?reason=lost');
    expect(res.status).toBe(400);
    expect(res.html).toContain('role="alert"');
  });

  it('another organization’s suppression is not found, and nothing of it shows', async () => {
    const mine = await owner();
    const theirs = await owner();
    const foreign = await createSuppression(deps, theirs.orgId, { channelType: 'email', address: 'theirs@example.com' });
    expect((await mine.browser.get(`/suppressions/${foreign.id}/lift`)).status).toBe(404);
    expect((await mine.browser.post(`/suppressions/${foreign.id}/lift`)).status).toBe(404);
    expect((await mine.browser.get('/suppressions')).html).not.toContain('theirs@example.com');
    expect(await suppressed(theirs.orgId)).toEqual(['theirs@example.com manual']);
  });

  it('needs the CSRF token, and a manager: members read but change nothing', async () => {
    const { browser, orgId } = await owner();
    const one = await createSuppression(deps, orgId, { channelType: 'email', address: 'kept@example.com' });
    expect((await browser.send('POST', `/suppressions/${one.id}/lift`, {})).status).toBe(403);
    expect((await browser.send('POST', '/suppressions', { channelType: 'email', address: 'x@example.com' })).status).toBe(403);
    for (const role of ['member', 'operator'] as const) {
      const person = await signedIn(app, deps, role, orgId);
      const list = await person.browser.get('/suppressions');
      expect(list.html).toContain('kept@example.com');
      expect(list.html.includes('Lift…')).toBe(role === 'operator');
      if (role === 'member') {
        expect((await person.browser.post(`/suppressions/${one.id}/lift`)).status).toBe(403);
        expect((await person.browser.post('/suppressions', { channelType: 'email', address: 'x@example.com' })).status).toBe(403);
      }
    }
    expect(await suppressed(orgId)).toEqual(['kept@example.com manual']);
  });

  it('escapes what people typed', async () => {
    const { browser } = await owner();
    const res = await browser.get(`/suppressions?address=${encodeURIComponent('<script>alert(1)</script>')}`);
    expect(res.html).not.toContain('<script>alert(1)');
    expect(res.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});
