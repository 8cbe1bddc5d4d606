// docs/try-it-locally.md, step by step, in a real chromium against the real API, dashboard and send-worker with no
// provider configured (live messages go to the sandbox): a domain marked verified by the operator command's core
// function, a topic, a broadcast whose preference page saves, an open and a click counted, and an SMS held by quiet
// hours. `npm run screenshots -w @tidings/dashboard` saves its pictures into docs/screenshots/.
import type { Broadcast, Message, MessageWithEvents } from '@tidings/contracts';
import { markEmailDomainVerified } from '@tidings/core';
import { startSendWorker, type SendWorker } from '@tidings/send-worker';
import type { Page } from 'playwright-core';
import { callApi, docsScreenshotPath, followShownLink, organizationWithOwner, type Stack, startStack, waitFor } from './harness.ts';

const OWNER = { email: 'you@tour.test', password: 'correct horse battery' };
const DOMAIN = 'acme-tour.com';

let stack: Stack;
let worker: SendWorker;
let page: Page;
let orgId = '';
let key = '';

beforeAll(async () => {
  stack = await startStack({ SANDBOX_OUTCOME_DELAY_MS: '100' });
  worker = await startSendWorker(stack.deps);
  const created = await organizationWithOwner(stack, { name: 'Acme', mode: 'live' }, OWNER);
  ({ orgId, page } = created);
  key = created.apiKey.key;
  await page.setViewportSize({ width: 1280, height: 800 });
}, 120_000);

afterAll(async () => {
  await worker?.close();
  await stack?.close();
});

const api = <T>(method: string, urlPath: string, body?: unknown) => callApi<T>(stack, key, method, urlPath, body);

const statusesOf = async (id: string) => (await api<MessageWithEvents>('GET', `/v1/messages/${id}`)).events.map((e) => e.status);

describe('try everything locally (docs/try-it-locally.md)', () => {
  let email: Message;

  it('sends a live broadcast from a domain marked verified; its preference page saves the choice', async () => {
    const domain = await api<{ id: string }>('POST', '/v1/email-domains', { name: DOMAIN });
    await markEmailDomainVerified(stack.deps, orgId, DOMAIN);
    await api('PATCH', `/v1/email-domains/${domain.id}`, { openTracking: true, clickTracking: true });
    const topic = await api<{ id: string }>('POST', '/v1/topics', { name: 'Product news', description: 'What we shipped this month', defaultSubscription: 'opt_out' });
    await api('POST', '/v1/contacts', { email: 'ada@example.com', firstName: 'Ada' });
    const template = await api<{ id: string }>('POST', '/v1/templates', {
      name: 'December news',
      channelType: 'email',
      subject: 'What we shipped in December',
      html: `<h1>Hi {{ contact.firstName }}</h1><p><a id="changelog" href="${stack.dashboardUrl}/healthz?from=changelog">Read the changelog</a></p><p><a id="preferences" href="{{ preferencesUrl }}">Email preferences</a> · <a href="{{ unsubscribeUrl }}">Unsubscribe</a></p>`,
    });
    const broadcast = await api<Broadcast>('POST', '/v1/broadcasts', {
      name: 'December news',
      channelType: 'email',
      templateId: template.id,
      topicId: topic.id,
      from: `Acme <news@${DOMAIN}>`,
    });
    await api('POST', `/v1/broadcasts/${broadcast.id}/send`, {});
    const sent = await waitFor(
      () => api<{ data: Message[] }>('GET', `/v1/messages?limit=5`),
      (list) => list.data.some((m) => m.status === 'delivered'),
    );
    email = sent.data.find((m) => m.status === 'delivered')!;
    expect(email).toMatchObject({ provider: 'sandbox', to: 'ada@example.com' });

    await page.goto(`${stack.dashboardUrl}/sandbox/${email.id}`);
    const frame = page.frameLocator('iframe.email-frame');
    const [preferences] = await Promise.all([page.waitForEvent('popup'), frame.locator('#preferences').click()]);
    await preferences.waitForLoadState();
    const box = preferences.locator('input[name=topic]');
    await expect(box.isChecked()).resolves.toBe(true);
    await box.uncheck();
    await preferences.click('button:has-text("Save preferences")');
    await expect(preferences.locator('[role=status]').textContent()).resolves.toBe('Your preferences are saved.');
    await expect(preferences.locator('input[name=topic]').isChecked()).resolves.toBe(false);
    await preferences.screenshot({ path: docsScreenshotPath('tour-preferences-saved'), fullPage: true });
    await preferences.close();
  });

  it('counts a click on the tracked link and, once images are shown, an open', async () => {
    await page.goto(`${stack.dashboardUrl}/sandbox/${email.id}`);
    const frame = page.frameLocator('iframe.email-frame');
    const [changelog] = await Promise.all([page.waitForEvent('popup'), frame.locator('#changelog').click()]);
    await followShownLink(stack, changelog, `${stack.dashboardUrl}/healthz?from=changelog`);
    await changelog.close();
    await page.click('a:has-text("Show images")');
    await waitFor(
      () => statusesOf(email.id),
      (statuses) => statuses.includes('opened') && statuses.includes('clicked'),
    );
    await page.goto(`${stack.dashboardUrl}/messages/${email.id}`);
    await expect(page.locator('[data-count=opens] dd').textContent()).resolves.toBe('1');
    await expect(page.locator('[data-count=clicks] dd').textContent()).resolves.toBe('1');
    await page.locator('#engagement').screenshot({ path: docsScreenshotPath('tour-open-and-click') });
  });

  it('holds an SMS due inside quiet hours, says on the broadcast page when it goes, and cancels it with the broadcast', async () => {
    const hhmm = (offsetMinutes: number) => new Date(Date.now() + offsetMinutes * 60_000).toISOString().slice(11, 16);
    // live SMS needs a number of the organization's: the sandbox sells one while no SMS provider is configured
    const [available] = (await api<{ data: { number: string }[] }>('GET', '/v1/phone-numbers/available?country=US')).data;
    const number = await api<{ id: string }>('POST', '/v1/phone-numbers', { number: available!.number });
    await api('PATCH', `/v1/phone-numbers/${number.id}`, { isDefault: true });
    const contact = await api<{ id: string }>('POST', '/v1/contacts', { phone: '+14155550123', firstName: 'Grace', attributes: { timezone: 'UTC' } });
    const template = await api<{ id: string }>('POST', '/v1/templates', { name: 'Doors open', channelType: 'sms', body: 'Hi {{ contact.firstName }}, doors open at 9.' });
    const segment = await api<{ id: string }>('POST', '/v1/segments', { name: 'Grace', criteria: { all: [{ field: 'phone', op: 'eq', value: '+14155550123' }] } });
    const broadcast = await api<Broadcast>('POST', '/v1/broadcasts', {
      name: 'Doors open',
      channelType: 'sms',
      templateId: template.id,
      segmentId: segment.id,
      quietHours: { start: hhmm(-60), end: hhmm(90) },
    });
    await api('POST', `/v1/broadcasts/${broadcast.id}/send`, {});
    await waitFor(
      () => api<{ counts: { waiting: number } }>('GET', `/v1/broadcasts/${broadcast.id}`),
      (b) => b.counts.waiting === 1,
    );
    const [held] = (await api<{ data: Message[] }>('GET', `/v1/messages?channelType=sms&limit=5`)).data;
    expect(held).toMatchObject({ status: 'scheduled', contactId: contact.id });
    await page.goto(`${stack.dashboardUrl}/broadcasts/${broadcast.id}`);
    const heldUntil = page.locator('.held-until');
    await expect(heldUntil.textContent()).resolves.toMatch(/^1 message goes out at .+ \(UTC\), when the window ends in each recipient's time zone$/);
    await expect(heldUntil.locator('time').getAttribute('datetime')).resolves.toBe(held!.scheduledAt);
    await page.locator('#progress').screenshot({ path: docsScreenshotPath('tour-quiet-hours') });

    await api('POST', `/v1/broadcasts/${broadcast.id}/cancel`, {});
    await expect(api<Message>('GET', `/v1/messages/${held!.id}`)).resolves.toMatchObject({ status: 'canceled' });
    await page.goto(`${stack.dashboardUrl}/broadcasts/${broadcast.id}`);
    await expect(page.locator('[data-count^="waiting"]').count()).resolves.toBe(0);
    await expect(page.locator('.held-until').count()).resolves.toBe(0);
  });
});
