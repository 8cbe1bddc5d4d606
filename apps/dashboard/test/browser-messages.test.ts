// Messages and the sandbox inbox in a real chromium: messages go in through the real API with a test key, a real
// send-worker takes them through the sandbox, and the dashboard shows what would have been sent.
import type { Message, MessageWithEvents } from '@tidings/contracts';
import { createOrganization, createUser } from '@tidings/core';
import { startSendWorker, type SendWorker } from '@tidings/send-worker';
import type { Page } from 'playwright-core';
import { followShownLink, screenshotPath, type Stack, startStack, waitFor } from './harness.ts';

const OWNER = { email: 'owner@acme.test', password: 'correct horse battery' };
const WELCOME_HTML = `<!doctype html><html><body style="margin:0;font-family:Helvetica,Arial,sans-serif;background:#f4f4f7">
<div style="max-width:520px;margin:24px auto;background:#ffffff;border-radius:8px;padding:32px">
<h1 id="greeting" style="color:rgb(79, 70, 229);font-size:22px;margin:0 0 12px">Welcome to Acme, Ada!</h1>
<p style="color:#374151;line-height:1.5">Your account is ready. Confirm your address to start sending.</p>
<p><a href="https://acme.example/confirm" style="display:inline-block;background:#4f46e5;color:#fff;padding:10px 18px;border-radius:6px;text-decoration:none">Confirm my address</a></p>
<p style="color:#9ca3af;font-size:12px">You received this because you signed up at acme.example.</p>
</div><script>document.body.setAttribute('data-ran', 'yes'); parent.document.title = 'pwned';</script></body></html>`;

let stack: Stack;
let worker: SendWorker;
let page: Page;
let key = '';

beforeAll(async () => {
  // the sandbox reports outcomes quickly, so a test sees messages delivered
  stack = await startStack({ SANDBOX_OUTCOME_DELAY_MS: '200', OUTBOX_RELAY_INTERVAL_MS: '500', OUTBOX_RELAY_GRACE_MS: '500' });
  worker = await startSendWorker(stack.deps);
  const { organization, apiKey } = await createOrganization(stack.deps, { name: 'Acme', mode: 'test' });
  await createUser(stack.deps, { orgId: organization.id, email: OWNER.email, password: OWNER.password, role: 'owner' });
  key = apiKey.key;
  page = await stack.browser.newPage();
}, 120_000);

afterAll(async () => {
  await worker?.close();
  await stack?.close();
});

const shot = (name: string) => page.screenshot({ path: screenshotPath(name), fullPage: true });

async function api<T>(method: string, urlPath: string, body?: unknown): Promise<T> {
  const res = await fetch(`${stack.apiUrl}${urlPath}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status).toBeLessThan(300);
  return (await res.json()) as T;
}

const send = (body: Record<string, unknown>) => api<Message>('POST', '/v1/messages', body);
const rows = () => page.locator('tbody tr');

describe('messages and the sandbox inbox in a browser', () => {
  let welcome: Message;
  let code: Message;

  it('shows an empty sandbox inbox that says how to send with a test key', async () => {
    await page.goto(`${stack.dashboardUrl}/sign-in`);
    await page.fill('input[name=email]', OWNER.email);
    await page.fill('input[name=password]', OWNER.password);
    await page.click('button:has-text("Sign in")');
    await page.waitForURL((url) => url.pathname !== '/sign-in');
    await page.click('.sidebar a:has-text("Sandbox inbox")');
    await expect(page.locator('.empty-state h3').textContent()).resolves.toBe('Nothing in the sandbox yet');
    await expect(page.locator('.empty-state pre').textContent()).resolves.toContain('Authorization: Bearer sk_test_...');
    await shot('sandbox-empty');
  });

  it('lists what a test key sent, and shows an email’s HTML in a frame where its script does not run', async () => {
    welcome = await send({
      channelType: 'email',
      to: 'ada@example.com',
      from: 'Acme <hello@acme.example>',
      subject: 'Welcome to Acme',
      html: WELCOME_HTML,
      text: 'Welcome to Acme, Ada!\n\nConfirm: https://acme.example/confirm',
    });
    await send({ channelType: 'email', to: 'bounce@example.com', subject: 'Your invoice #1042', html: '<p>Invoice attached.</p>' });
    code = await send({ channelType: 'sms', to: '+14155550123', body: 'Your Acme code is 482913. It expires in 10 minutes.' });
    await send({ channelType: 'sms', to: '+14155550000', body: 'Your order has shipped.' });
    await send({
      channelType: 'email',
      to: 'grace@example.com',
      subject: 'Weekly digest',
      text: 'Three new comments.',
      scheduledAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const final = await waitFor(
      () => api<{ data: Message[] }>('GET', '/v1/messages?limit=10'),
      (list) => list.data.filter((m) => ['delivered', 'bounced', 'undelivered'].includes(m.status)).length === 4,
    );
    expect(final.data.map((m) => m.status).sort()).toEqual(['bounced', 'delivered', 'delivered', 'scheduled', 'undelivered']);

    await page.goto(`${stack.dashboardUrl}/sandbox`);
    await expect(rows().count()).resolves.toBe(5);
    await shot('sandbox-inbox');
    await page.click('.tabs a:has-text("SMS")');
    await expect(rows().count()).resolves.toBe(2);
    await page.click('.tabs a:has-text("All")');

    await page.click('a:has-text("Welcome to Acme")');
    await page.waitForURL((url) => url.pathname === `/sandbox/${welcome.id}`);
    const frame = page.frameLocator('iframe.email-frame');
    await expect(frame.locator('#greeting').textContent()).resolves.toBe('Welcome to Acme, Ada!');
    // inline styles apply (the page's policy allows them), scripts do not run (sandbox without allow-scripts)
    await expect(frame.locator('#greeting').evaluate((h) => getComputedStyle(h).color)).resolves.toBe('rgb(79, 70, 229)');
    await expect(frame.locator('body').getAttribute('data-ran')).resolves.toBeNull();
    expect(await page.title()).toBe('Welcome to Acme · Tidings');
    await expect(page.locator('iframe.email-frame').getAttribute('sandbox')).resolves.toBe('allow-popups allow-popups-to-escape-sandbox');
    await expect(page.locator('.text-part').textContent()).resolves.toContain('Confirm: https://acme.example/confirm');
    await expect(page.locator('.mail .badge').textContent()).resolves.toBe('delivered');
    await shot('sandbox-email');

    await page.goto(`${stack.dashboardUrl}/sandbox/${code.id}`);
    await expect(page.locator('.sms-bubble').textContent()).resolves.toBe('Your Acme code is 482913. It expires in 10 minutes.');
    await expect(page.locator('iframe').count()).resolves.toBe(0);
    await shot('sandbox-sms');
  });

  it('lists messages with filters, and opens one with its status history', async () => {
    await page.click('.sidebar a:has-text("Messages")');
    await page.waitForURL((url) => url.pathname === '/messages');
    await expect(rows().count()).resolves.toBe(5);

    await page.selectOption('select[name=status]', 'bounced');
    await page.click('button:has-text("Filter")');
    await expect(rows().count()).resolves.toBe(1);
    await expect(rows().first().textContent()).resolves.toContain('bounce@example.com');
    await page.click('a:has-text("Clear")');
    await page.fill('input[name=to]', 'ada@example.com');
    await page.click('button:has-text("Filter")');
    await expect(rows().count()).resolves.toBe(1);

    await page.click('a:has-text("Welcome to Acme")');
    await page.waitForURL((url) => url.pathname === `/messages/${welcome.id}`);
    const history = page.locator('table.history tbody tr td:first-child');
    await expect(history.allTextContents()).resolves.toEqual(['queued', 'sending', 'sent', 'delivered']);
    const stored = await api<MessageWithEvents>('GET', `/v1/messages/${welcome.id}`);
    await expect(page.locator('.facts').textContent()).resolves.toContain(stored.providerMessageId!);
    await expect(page.frameLocator('iframe.email-frame').locator('#greeting').textContent()).resolves.toBe('Welcome to Acme, Ada!');
    await shot('message-detail');
    // the Source tab: the email's RFC 5322 source, as message.getSource answers it
    await page.click('details.email-source summary');
    const source = await page.locator('details.email-source pre').textContent();
    expect(source).toContain(`Message-ID: <${welcome.id}@`);
    expect(source).toContain('Subject: Welcome to Acme');
    expect(source).toBe(
      (await fetch(`${stack.apiUrl}/v1/messages/${welcome.id}/source`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.text())).replaceAll('\r\n', '\n'),
    );
  });

  it('fits the messages list in 1,280 px with long addresses, subjects and reasons, and filters by tag', async () => {
    const long = `${'very-long-local-part.'.repeat(6)}x@${'subdomain.'.repeat(5)}example.com`;
    const tagged = await send({ channelType: 'email', to: long, subject: `A subject that goes on ${'and on '.repeat(30)}`, text: 'Hi', tags: ['onboarding'] });
    await send({ channelType: 'email', to: 'bounce@example.com', subject: 'Bounces again', text: 'x', tags: ['billing'] });
    await waitFor(
      () => api<{ data: Message[] }>('GET', '/v1/messages?limit=10'),
      (list) => list.data.filter((m) => ['queued', 'sending', 'sent'].includes(m.status)).length === 0,
    );
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${stack.dashboardUrl}/messages`);
    const fits = (selector: string) => page.locator(selector).evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    for (const selector of ['html', '.table-wrap', 'form.filters']) {
      const { scroll, client } = await fits(selector);
      expect(scroll).toBeLessThanOrEqual(client);
    }
    const bounced = page.locator('tbody tr', { hasText: 'Bounces again' });
    await expect(bounced.locator('.failure-reason').textContent()).resolves.not.toBe('');

    await page.fill('input[name=tag]', 'onboarding');
    await page.click('button:has-text("Filter")');
    await expect(rows().count()).resolves.toBe(1);
    await expect(rows().first().getAttribute('data-message-id')).resolves.toBe(tagged.id);
    await page.goto(`${stack.dashboardUrl}/messages`);
    await shot('messages-list');
  });

  it('draws the overview’s charts with uPlot served by the app, next to the totals and rates', async () => {
    const requested: string[] = [];
    const refused: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error') refused.push(message.text());
    });
    await page.click('.sidebar a:has-text("Overview")');
    await page.waitForURL((url) => url.pathname === '/overview');
    await page.locator('.chart[data-channel="email"][data-drawn] canvas').waitFor();
    await page.locator('.chart[data-channel="sms"][data-drawn] canvas').waitFor();
    await expect(page.locator('.chart[data-channel="email"] .u-legend').textContent()).resolves.toContain('delivered');
    // the email chart has non-zero data: its canvas is not blank
    const painted = await page.locator('.chart[data-channel="email"] canvas').evaluate((canvas: HTMLCanvasElement) =>
      canvas
        .getContext('2d')!
        .getImageData(0, 0, canvas.width, canvas.height)
        .data.some((value) => value !== 0),
    );
    expect(painted).toBe(true);
    await expect(page.locator('tr[data-channel="All"] td.rate').first().textContent()).resolves.toMatch(/^\d+\.\d%$/);
    expect(requested.filter((url) => !url.startsWith(stack.dashboardUrl))).toEqual([]);
    expect(requested).toContain(`${stack.dashboardUrl}/assets/uplot.min.js`);
    expect(refused).toEqual([]);
    await shot('overview');
  });

  it('shows an inline cid: image in the message and sandbox views', async () => {
    // a 1x1 PNG
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const sent = await send({
      channelType: 'email',
      to: 'ada@example.com',
      subject: 'With a logo',
      html: '<p><img id="logo" src="cid:logo" alt="logo"></p>',
      attachments: [{ filename: 'logo.png', content: png, contentId: 'logo' }],
    });
    for (const path of [`/messages/${sent.id}`, `/sandbox/${sent.id}`]) {
      await page.goto(`${stack.dashboardUrl}${path}`);
      const logo = page.frameLocator('iframe.email-frame').locator('#logo');
      await expect(logo.evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth))).resolves.toBe(1);
    }
    await shot('inline-image');
  });

  it('shows a sandbox email as it was sent: its tracked link opens in a new tab and counts a click, and showing images loads the pixel, an open', async () => {
    const tracked = await send({
      channelType: 'email',
      to: 'ada@example.com',
      subject: 'Tracked',
      html: `<p><a id="cta" href="${stack.dashboardUrl}/healthz?from=email">Open the dashboard</a></p>`,
      tracking: { opens: true, clicks: true },
    });
    const statusesOf = async () => (await api<MessageWithEvents>('GET', `/v1/messages/${tracked.id}`)).events.map((e) => e.status);
    await waitFor(statusesOf, (statuses) => statuses.includes('delivered'));
    await page.goto(`${stack.dashboardUrl}/sandbox/${tracked.id}`);
    const frame = page.frameLocator('iframe.email-frame');
    await expect(frame.locator('#cta').getAttribute('href')).resolves.toMatch(new RegExp(`^${stack.apiUrl}/c/`));
    await expect(frame.locator(`img[src^="${stack.apiUrl}/o/"]`).count()).resolves.toBe(1);
    const [popup] = await Promise.all([page.waitForEvent('popup'), frame.locator('#cta').click()]);
    await followShownLink(stack, popup, `${stack.dashboardUrl}/healthz?from=email`);
    await popup.close();
    await waitFor(statusesOf, (statuses) => statuses.includes('clicked'));
    // remote images stay unloaded until asked for, so reading the preview counts no open
    expect(await statusesOf()).not.toContain('opened');
    await page.click('a:has-text("Show images")');
    await waitFor(statusesOf, (statuses) => statuses.includes('opened'));
  });
});
