// The overview page through HTTP (app.request) over real Postgres: counts per day and channel, rates, and only the
// current organization's messages.
import { sendMessage } from '@tidings/core';
import { createTestDeps, makeOrganization } from '@tidings/testing';
import { createDashboard } from '../src/app.ts';
import { dashboardClient } from './client.ts';
import { signedIn } from './signed-in.ts';

const deps = createTestDeps();
const app = createDashboard(deps);
afterAll(() => deps.close());

/** A test-mode SMS of `orgId` that ended as `status`, created `daysAgo` days ago. */
async function messageThatEnded(orgId: string, status: 'delivered' | 'bounced' | 'failed' | 'undelivered' | 'sent', daysAgo = 0, channelType: 'sms' | 'email' = 'sms') {
  const content = channelType === 'sms' ? { channelType, to: '+14155550123', body: 'Hi' } : { channelType, to: 'ada@example.com', subject: 'Hi', text: 'Hi' };
  const message = await sendMessage({ deps, orgId, mode: 'test' }, content as Parameters<typeof sendMessage>[1]);
  await deps.db.message.update({ where: { id: message.id }, data: { status, createdAt: new Date(Date.now() - daysAgo * 86_400_000) } });
  return message;
}

describe('the overview', () => {
  it('is where signing in lands: the sign-in goes to /, which sends a signed-in person to /overview', async () => {
    const person = await signedIn(app, deps, 'member');
    const home = await person.browser.get('/');
    expect(home.status).toBe(303);
    expect(home.location).toBe('/overview');
    expect((await person.browser.get(home.location!)).status).toBe(200);
  });

  it('counts this organization’s messages of the last 30 days per channel, with delivery and bounce rates', async () => {
    const owner = await signedIn(app, deps, 'member');
    for (const status of ['delivered', 'delivered', 'delivered', 'bounced', 'failed'] as const) await messageThatEnded(owner.orgId, status);
    // a send to a suppressed number fails as SUPPRESSED: no failure of delivery, left out of the rate
    const suppressed = await messageThatEnded(owner.orgId, 'failed');
    await deps.db.message.update({ where: { id: suppressed.id }, data: { errorCode: 'SUPPRESSED', errorMessage: 'The recipient is suppressed' } });
    await messageThatEnded(owner.orgId, 'delivered', 3, 'email');
    await messageThatEnded(owner.orgId, 'delivered', 45); // older than 30 days: left out
    const other = await makeOrganization(deps);
    for (let i = 0; i < 3; i += 1) await messageThatEnded(other.orgId, 'bounced');

    const page = await owner.browser.get('/overview');
    expect(page.status).toBe(200);
    const row = (channel: string) => new RegExp(`<tr data-channel="${channel}">(.*?)</tr>`).exec(page.html)?.[1] ?? '';
    const cells = (channel: string) => [...row(channel).matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((m) => m[1]);
    // sent, delivered, bounced, failed, delivery rate (3 of 5 with an outcome), bounce rate (1 of 4 that reached a provider)
    expect(cells('SMS')).toEqual(['SMS', '4', '3', '1', '1', '60.0%', '25.0%']);
    expect(cells('Email')).toEqual(['Email', '1', '1', '0', '0', '100.0%', '0.0%']);
    expect(cells('All')).toEqual(['All', '5', '4', '1', '1', '66.7%', '20.0%']);
    const data = JSON.parse(/<script type="application\/json" id="overview-data">(.*?)<\/script>/s.exec(page.html)![1]!);
    expect(data.days).toHaveLength(30);
    expect(data.days.at(-1)).toBe(new Date().toISOString().slice(0, 10));
    expect(data.channels.sms.delivered.at(-1)).toBe(3);
    expect(data.channels.email.delivered.at(-4)).toBe(1);
    expect(page.html).toContain('<script src="/assets/uplot.min.js" defer="">');
  });

  it('counts a settled day once and keeps it (MessageDayCount), for this organization only', async () => {
    const owner = await signedIn(app, deps, 'member');
    const old = await messageThatEnded(owner.orgId, 'bounced', 10, 'email');
    const other = await makeOrganization(deps);
    await messageThatEnded(other.orgId, 'delivered', 10, 'email');
    const first = await owner.browser.get('/overview');
    expect(first.html).toMatch(/<tr data-channel="Email"><td class="name">Email<\/td><td>1<\/td><td>0<\/td><td>1<\/td>/);
    const tenDaysAgo = new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10);
    const kept = await deps.db.messageDayCount.findUniqueOrThrow({ where: { orgId_day: { orgId: owner.orgId, day: new Date(`${tenDaysAgo}T00:00:00Z`) } } });
    expect(kept.counts).toEqual([{ channelType: 'email', sent: 1, delivered: 0, bounced: 1, failed: 0 }]);
    expect(await deps.db.messageDayCount.count({ where: { orgId: owner.orgId } })).toBe(30 - 3);
    // a kept day is read, not counted again
    await deps.db.message.update({ where: { id: old.id }, data: { status: 'delivered' } });
    expect((await owner.browser.get('/overview')).html).toMatch(/<tr data-channel="Email"><td class="name">Email<\/td><td>1<\/td><td>0<\/td><td>1<\/td>/);
  });

  it('says so when nothing was sent, and asks visitors to sign in', async () => {
    const owner = await signedIn(app, deps, 'owner');
    expect((await owner.browser.get('/overview')).html).toContain('Nothing sent in the last 30 days');
    expect((await dashboardClient(app).get('/overview')).location).toBe('/sign-in?next=%2Foverview');
  });

  it('serves uPlot from the app itself', async () => {
    const script = await app.request('/assets/uplot.min.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toContain('uPlot');
    expect((await app.request('/assets/overview.js')).status).toBe(200);
  });
});
