// The dashboard of an organization made for testing (`--test`) provisions nothing at a live provider, with Resend and
// Telnyx configured (the real SDKs against loopback fakes): domains and numbers go to the sandbox, endpoints are test.
import { createSuppression, getEmailDomain, getWebhook } from '@tidings/core';
import { createTestDeps, makeOrganization, startFakeResend, startFakeTelnyx, startWebhookReceiver, type FakeServer, type WebhookReceiver } from '@tidings/testing';
import { createDashboard } from '../src/app.ts';
import { signedIn } from './signed-in.ts';

let resend: FakeServer;
let telnyx: FakeServer;
let receiver: WebhookReceiver;
let deps: ReturnType<typeof createTestDeps>;
let app: ReturnType<typeof createDashboard>;

beforeAll(async () => {
  [resend, telnyx, receiver] = await Promise.all([startFakeResend(), startFakeTelnyx(), startWebhookReceiver()]);
  deps = createTestDeps({
    RESEND_API_KEY: 're_live_secret_0123456789',
    RESEND_BASE_URL: resend.url,
    RESEND_RATE_PER_SECOND: '10000',
    TELNYX_API_KEY: 'KEY_live_secret',
    TELNYX_BASE_URL: `${telnyx.url}/v2`,
    WEBHOOK_ALLOW_LOOPBACK: 'true',
  });
  app = createDashboard(deps);
});
afterAll(async () => {
  await deps.close();
  await Promise.all([resend.close(), telnyx.close(), receiver.close()]);
});

describe('an organization made for testing, in the dashboard', () => {
  it('adds a domain and buys a number through the sandbox, and makes test endpoints; Resend and Telnyx hear nothing', async () => {
    const { orgId } = await makeOrganization(deps, { mode: 'test' });
    const { browser } = await signedIn(app, deps, 'owner', orgId);
    resend.reset();
    telnyx.reset();

    const added = await browser.post('/domains', { name: 'trial.example.com' });
    expect(added.status).toBe(303);
    expect((await getEmailDomain(deps, orgId, added.location!.split('/')[2]!)).provider).toBe('sandbox');

    const offered = await browser.get('/phone-numbers/available?country=US&areaCode=415');
    const number = /name="number" value="(\+1415555\d{4})"/.exec(offered.html)?.[1];
    expect(number).toMatch(/^\+141555501\d\d$/);
    const bought = await browser.post('/phone-numbers', { number: number! });
    expect(bought.status).toBe(303);
    expect((await deps.db.phoneNumber.findFirstOrThrow({ where: { orgId } })).provider).toBe('sandbox');

    const hook = await browser.post('/webhooks', { url: `${receiver.url}/trial`, events: 'message.queued' });
    expect(hook.status).toBe(303);
    const webhook = await deps.db.webhook.findFirstOrThrow({ where: { orgId } });
    expect((await getWebhook(deps, orgId, webhook.id)).mode).toBe('test');

    expect(resend.requests).toEqual([]);
    expect(telnyx.requests).toEqual([]);
  });

  it('a live organization’s dashboard still provisions at the live provider and makes live endpoints', async () => {
    const { browser, orgId } = await signedIn(app, deps, 'owner');
    resend.reset();
    const added = await browser.post('/domains', { name: 'live-dash.example.com' });
    expect(added.status).toBe(303);
    expect((await getEmailDomain(deps, orgId, added.location!.split('/')[2]!)).provider).toBe('resend');
    expect(resend.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/domains'))).toHaveLength(1);
    await browser.post('/webhooks', { url: `${receiver.url}/live`, events: 'message.queued' });
    expect((await deps.db.webhook.findFirstOrThrow({ where: { orgId } })).mode).toBe('live');
  });

  it('the suppressions page shows each suppression’s mode', async () => {
    const { browser, orgId } = await signedIn(app, deps, 'owner');
    await createSuppression(deps, orgId, { channelType: 'email', address: 'sandboxed@example.com' }, 'test');
    await createSuppression(deps, orgId, { channelType: 'email', address: 'real@example.com' }, 'live');
    const html = (await browser.get('/suppressions')).html;
    expect(html).toMatch(/sandboxed@example\.com<\/td>(?:(?!<\/tr>).)*Test \(stops test sends only\)/s);
    expect(html).toMatch(/real@example\.com<\/td>(?:(?!<\/tr>).)*<td>Live<\/td>/s);
  });
});
