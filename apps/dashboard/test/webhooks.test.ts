// The Webhooks pages through HTTP (app.request) over real Postgres and Redis; deliveries go through the real
// webhook-worker to a real HTTP receiver.
import { createWebhook } from '@tidings/core';
import { createTestDeps, startWebhookReceiver, type WebhookReceiver } from '@tidings/testing';
import { startWebhookWorker } from '@tidings/webhook-worker';
import { createDashboard } from '../src/app.ts';
import { waitFor } from './harness.ts';
import { signedIn } from './signed-in.ts';

// Retries after 100 and 200 ms instead of 5 s ... 10 h.
const deps = createTestDeps({ WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '100,200', WEBHOOK_TIMEOUT_MS: '2000' });
const app = createDashboard(deps);
const worker = startWebhookWorker(deps);
let receiver: WebhookReceiver;

beforeEach(async () => {
  receiver = await startWebhookReceiver();
});
afterEach(() => receiver.close());
afterAll(async () => {
  await worker.close();
  await deps.close();
});

const owner = () => signedIn(app, deps, 'owner');

/** Adds an endpoint through the form and returns its id and the secret its page showed once. */
async function addEndpoint(browser: Awaited<ReturnType<typeof owner>>['browser'], events = ['message.delivered', 'webhook.test']) {
  const res = await browser.post('/webhooks', { url: `${receiver.url}/hook`, description: 'CRM sync', events });
  expect(res.status).toBe(303);
  expect(res.location).toMatch(/^\/webhooks\/whk_/);
  const page = await browser.get(res.location!);
  const secret = /id="new-secret" readonly="" value="([^"]+)"/.exec(page.html)?.[1];
  return { id: res.location!.split('/')[2]!, secret: secret!, page };
}

describe('webhooks pages', () => {
  it('add an endpoint: the secret is shown once, then only the endpoint', async () => {
    const { browser, orgId } = await owner();
    const { id, secret, page } = await addEndpoint(browser);
    expect(secret).toMatch(/^whsec_/);
    expect(page.html).toContain('will not be shown again');
    expect(page.html).toContain('<code class="chip">message.delivered</code>');
    const again = await browser.get(`/webhooks/${id}`);
    expect(again.html).not.toContain(secret);
    const list = await browser.get('/webhooks');
    expect(list.html).toContain(`href="/webhooks/${id}"`);
    expect(list.html).toContain('CRM sync');
    expect(list.html).not.toContain(secret);
    expect(await deps.db.webhook.count({ where: { orgId } })).toBe(1);
  });

  it('refuses an endpoint without events, or at a private address, and says why next to the field', async () => {
    const { browser, orgId } = await owner();
    const noEvents = await browser.post('/webhooks', { url: `${receiver.url}/hook` });
    expect(noEvents.status).toBe(400);
    expect(noEvents.html).toContain('Choose at least one event type.');
    const privateUrl = await browser.post('/webhooks', { url: 'http://10.1.2.3/hook', events: 'webhook.test' });
    expect(privateUrl.status).toBe(400);
    expect(privateUrl.html).toMatch(/<small id="url-help">[^<]*(private|not public|non-public)[^<]*<\/small>/i);
    expect(privateUrl.html).toContain('value="http://10.1.2.3/hook"');
    expect(await deps.db.webhook.count({ where: { orgId } })).toBe(0);
  });

  it('send test event: the receiver gets a signed webhook.test, and the page lists the delivery as succeeded', async () => {
    const { browser } = await owner();
    const { id, secret } = await addEndpoint(browser);
    const sent = await browser.post(`/webhooks/${id}/test`);
    expect(sent.status).toBe(303);
    expect(sent.location).toBe(`/webhooks/${id}`);
    const [request] = await receiver.waitForRequests(1);
    expect(JSON.parse(request!.body)).toMatchObject({ id: request!.headers['webhook-id'], type: 'webhook.test', data: { id } });
    expect(request!.headers['webhook-signature']).toMatch(/^v1,/);
    expect(request!.body).not.toContain(secret);

    // the flash shows on the first page after the redirect only; then reload until the worker has recorded the answer
    expect((await browser.get(`/webhooks/${id}`)).html).toContain('A webhook.test event is on its way');
    const page = await waitFor(
      () => browser.get(`/webhooks/${id}`),
      (p) => p.html.includes('badge succeeded'),
    );
    expect(page.html).toContain(`data-delivery-id="`);
    expect(page.html).toContain('<span class="badge succeeded">succeeded</span>');
    expect(page.html).toContain('HTTP 200');
    expect(page.html).toContain(request!.headers['webhook-id']);
  });

  it('rotate asks first, shows the new secret once, and deliveries carry both signatures for a while', async () => {
    const { browser } = await owner();
    const { id, secret } = await addEndpoint(browser);
    expect((await browser.get(`/webhooks/${id}/rotate`)).html).toContain('Rotate secret');
    const rotated = await browser.post(`/webhooks/${id}/rotate`);
    expect(rotated.location).toBe(`/webhooks/${id}`);
    const page = await browser.get(`/webhooks/${id}`);
    const newSecret = /id="new-secret" readonly="" value="([^"]+)"/.exec(page.html)![1]!;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(secret);
    expect(page.html).toContain('the previous one also signs for 24 hours');
    expect(page.html).toContain('signs too, until');
    expect((await browser.get(`/webhooks/${id}`)).html).not.toContain(newSecret);

    await browser.post(`/webhooks/${id}/test`);
    const [request] = await receiver.waitForRequests(1);
    expect(request!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
  });

  it('disable asks first, then nothing is sent; enable makes it work again', async () => {
    const { browser, orgId } = await owner();
    const { id } = await addEndpoint(browser);
    const confirm = await browser.get(`/webhooks/${id}/disable`);
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain('Disable endpoint');
    expect((await browser.post(`/webhooks/${id}/disable`)).status).toBe(303);
    const disabled = await browser.get(`/webhooks/${id}`);
    expect(disabled.html).toContain('Disabled by a person on');
    expect(disabled.html).not.toContain('Send test event');
    expect((await browser.post(`/webhooks/${id}/test`)).status).toBe(400);
    expect(await deps.db.webhookDelivery.count({ where: { orgId } })).toBe(0);

    expect((await browser.post(`/webhooks/${id}/enable`)).status).toBe(303);
    const enabled = await browser.get(`/webhooks/${id}`);
    expect(enabled.html).toContain('<span class="badge enabled">Enabled</span>');
    expect((await browser.post(`/webhooks/${id}/test`)).status).toBe(303);
    await receiver.waitForRequests(1);
  });

  it('an endpoint that answers 410 is disabled automatically: the list says why, and every page tells managers', async () => {
    const { browser, orgId } = await owner();
    const member = await signedIn(app, deps, 'member', orgId);
    const { id } = await addEndpoint(browser);
    receiver.replyNext({ kind: 'status', status: 410 });
    await browser.post(`/webhooks/${id}/test`);
    await waitFor(
      () => deps.db.webhook.findUniqueOrThrow({ where: { id } }),
      (row) => !row.enabled,
    );

    const list = await browser.get('/webhooks');
    expect(list.html).toContain('Auto-disabled');
    expect(list.html).toMatch(/Disabled automatically on \w{3} \d+, \d{4} \d\d:\d\d: the endpoint answered 410 Gone/);
    const elsewhere = await browser.get('/settings/api-keys');
    expect(elsewhere.html).toContain('class="notice"');
    expect(elsewhere.html).toContain(`<a href="/webhooks/${id}">${receiver.url}/hook</a>`);
    expect(elsewhere.html).toContain('answered 410 Gone');
    // members read the reason on the webhooks page; the banner is for the people who can act on it
    expect((await member.browser.get('/webhooks')).html).toContain('answered 410 Gone');
    expect((await member.browser.get('/settings/api-keys')).html).not.toContain('class="notice"');

    // the notice lasts a week; the endpoint's own row keeps saying why
    await deps.db.webhook.update({ where: { id }, data: { disabledAt: new Date(Date.now() - 8 * 24 * 3600_000) } });
    expect((await browser.get('/settings/api-keys')).html).not.toContain('class="notice"');
    expect((await browser.get('/webhooks')).html).toContain('answered 410 Gone');

    expect((await browser.post(`/webhooks/${id}/enable`)).status).toBe(303);
    expect((await browser.get('/webhooks')).html).not.toContain('Auto-disabled');
  });

  it('an endpoint failing for 5 days straight is disabled, and the page says for how long', async () => {
    const { browser } = await owner();
    const { id } = await addEndpoint(browser);
    await deps.db.webhook.update({ where: { id }, data: { failingSince: new Date(Date.now() - 5 * 24 * 3600_000 - 1000) } });
    receiver.setDefault({ kind: 'status', status: 500 });
    await browser.post(`/webhooks/${id}/test`);
    await waitFor(
      () => deps.db.webhook.findUniqueOrThrow({ where: { id } }),
      (row) => !row.enabled,
    );
    const page = await browser.get(`/webhooks/${id}`);
    expect(page.html).toMatch(/id="disabled-reason">Disabled automatically on [^<]+ after failing for 5 days straight \(since /);
    expect(page.html).toContain('Re-enable');
  });

  it('another organization’s endpoint is not found on every page and action, and nothing of it shows', async () => {
    const mine = await owner();
    const theirs = await owner();
    const foreign = await createWebhook(deps, theirs.orgId, { url: `${receiver.url}/theirs`, events: ['webhook.test'] });
    for (const path of [`/webhooks/${foreign.id}`, `/webhooks/${foreign.id}/disable`, `/webhooks/${foreign.id}/rotate`]) {
      const res = await mine.browser.get(path);
      expect(res.status).toBe(404);
      expect(res.html).not.toContain('/theirs');
    }
    for (const action of ['test', 'enable', 'disable', 'rotate']) expect((await mine.browser.post(`/webhooks/${foreign.id}/${action}`)).status).toBe(404);
    await deps.db.webhook.update({ where: { id: foreign.id }, data: { enabled: false, disabledReason: 'gone', disabledAt: new Date() } });
    expect((await mine.browser.get('/webhooks')).html).not.toContain(foreign.id);
    expect((await mine.browser.get('/settings/api-keys')).html).not.toContain('class="notice"');
    expect((await theirs.browser.get('/settings/api-keys')).html).toContain(foreign.id);
    expect(await deps.db.webhook.findUniqueOrThrow({ where: { id: foreign.id } })).toMatchObject({ disabledReason: 'gone', previousSecretCiphertext: null });
    expect(await deps.db.webhookDelivery.count({ where: { webhookId: foreign.id } })).toBe(0);
  });

  it('needs the CSRF token, and a manager: members read but change nothing', async () => {
    const { browser, orgId } = await owner();
    const { id } = await addEndpoint(browser);
    const forged = await browser.send('POST', `/webhooks/${id}/disable`, {});
    expect(forged.status).toBe(403);
    const noToken = await browser.send('POST', '/webhooks', { url: `${receiver.url}/x`, events: 'webhook.test' });
    expect(noToken.status).toBe(403);

    const member = await signedIn(app, deps, 'member', orgId);
    const page = await member.browser.get(`/webhooks/${id}`);
    expect(page.status).toBe(200);
    expect(page.html).not.toContain('Send test event');
    expect((await member.browser.get('/webhooks')).html).not.toContain('Add endpoint');
    expect((await member.browser.post('/webhooks', { url: `${receiver.url}/x`, events: 'webhook.test' })).status).toBe(403);
    for (const action of ['test', 'disable', 'rotate']) expect((await member.browser.post(`/webhooks/${id}/${action}`)).status).toBe(403);
    expect(await deps.db.webhook.findMany({ where: { orgId } })).toEqual([expect.objectContaining({ id, enabled: true, previousSecretCiphertext: null })]);
    expect(await deps.db.webhookDelivery.count({ where: { orgId } })).toBe(0);
  });

  it('a failing endpoint shows "failing since"; a delivery opens to its payload and attempts, and Resend delivers it once the endpoint is back', async () => {
    const { browser } = await owner();
    const { id } = await addEndpoint(browser);
    receiver.setDefault({ kind: 'status', status: 500, body: '<script>alert("down")</script>' });
    expect((await browser.post(`/webhooks/${id}/test`)).status).toBe(303);
    const failed = await waitFor(
      () => deps.db.webhookDelivery.findFirst({ where: { webhookId: id } }),
      (delivery) => delivery?.status === 'failed',
    );
    expect(failed!.status).toBe('failed');
    const list = await browser.get('/webhooks');
    expect(list.html).toMatch(/<span class="badge failing">Failing since \w{3} \d+, \d{4} \d{2}:\d{2}<\/span>/);

    const detail = await browser.get(`/webhooks/${id}/deliveries/${failed!.id}`);
    expect(detail.status).toBe(200);
    expect(detail.html).toContain('&quot;type&quot;: &quot;webhook.test&quot;');
    expect(detail.html.match(/HTTP 500/g)!.length).toBeGreaterThanOrEqual(3);
    expect(detail.html).toContain('&lt;script&gt;alert(&quot;down&quot;)&lt;/script&gt;');
    expect(detail.html).not.toContain('<script>alert');

    receiver.setDefault({ kind: 'status', status: 200, body: 'ok' });
    const resent = await browser.post(`/webhooks/${id}/deliveries/${failed!.id}/resend`);
    expect(resent.status).toBe(303);
    expect(resent.location).toBe(`/webhooks/${id}/deliveries/${failed!.id}`);
    const done = await waitFor(
      () => deps.db.webhookDelivery.findUniqueOrThrow({ where: { id: failed!.id } }),
      (delivery) => delivery.status === 'succeeded',
    );
    expect(done.status).toBe('succeeded');
    expect((await browser.get('/webhooks')).html).not.toContain('badge failing');
  });

  it('replays the failed deliveries since a time', async () => {
    const { browser } = await owner();
    const { id } = await addEndpoint(browser);
    receiver.setDefault({ kind: 'status', status: 503 });
    await browser.post(`/webhooks/${id}/test`);
    await browser.post(`/webhooks/${id}/test`);
    await waitFor(
      () => deps.db.webhookDelivery.count({ where: { webhookId: id, status: 'failed' } }),
      (count) => count === 2,
    );
    receiver.setDefault({ kind: 'status', status: 200 });
    const since = new Date(Date.now() - 3_600_000).toISOString().slice(0, 16);
    const replayed = await browser.post(`/webhooks/${id}/replay`, { since, onlyFailed: 'yes' });
    expect(replayed.status).toBe(303);
    expect((await browser.get(replayed.location!)).html).toContain('2 deliveries are on their way again.');
    expect(
      await waitFor(
        () => deps.db.webhookDelivery.count({ where: { webhookId: id, status: 'succeeded' } }),
        (count) => count === 2,
      ),
    ).toBe(2);
    const bad = await browser.post(`/webhooks/${id}/replay`, { since: 'yesterday' });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('Replay since: must be a date and time');
  });

  it('another organization’s deliveries are not found; resend and replay need the token and a manager', async () => {
    const mine = await owner();
    const theirs = await owner();
    const { id } = await addEndpoint(theirs.browser);
    await theirs.browser.post(`/webhooks/${id}/test`);
    const delivery = await waitFor(
      () => deps.db.webhookDelivery.findFirst({ where: { webhookId: id } }),
      (row) => row?.status === 'succeeded',
    );
    const requestsBefore = receiver.requests.length;
    expect((await mine.browser.get(`/webhooks/${id}/deliveries/${delivery!.id}`)).status).toBe(404);
    expect((await mine.browser.post(`/webhooks/${id}/deliveries/${delivery!.id}/resend`)).status).toBe(404);
    expect((await mine.browser.post(`/webhooks/${id}/replay`, { since: '2026-01-01T00:00' })).status).toBe(404);
    const myHook = await addEndpoint(mine.browser);
    expect((await mine.browser.get(`/webhooks/${myHook.id}/deliveries/${delivery!.id}`)).status).toBe(404);

    expect((await theirs.browser.send('POST', `/webhooks/${id}/deliveries/${delivery!.id}/resend`, {})).status).toBe(403);
    const member = await signedIn(app, deps, 'member', theirs.orgId);
    expect((await member.browser.get(`/webhooks/${id}/deliveries/${delivery!.id}`)).html).not.toContain('/resend');
    expect((await member.browser.post(`/webhooks/${id}/deliveries/${delivery!.id}/resend`)).status).toBe(403);
    expect((await member.browser.post(`/webhooks/${id}/replay`, { since: '2026-01-01T00:00' })).status).toBe(403);
    expect(await deps.db.webhookDelivery.findUniqueOrThrow({ where: { id: delivery!.id } })).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(receiver.requests.length).toBe(requestsBefore);
  });
});
