// Every page behind sign-in at 1,280 px with long content (long addresses, URLs, names, a long domain): nothing makes
// the page wider than the window, and a column of facts keeps a readable width. The pages outside the signed-in
// layout (sign-in, sign-up, password reset, two-factor, invitations) are in browser-page-width-accounts.test.ts.
import type { Broadcast, Message } from '@tidings/contracts';
import { createUser } from '@tidings/core';
import { startSendWorker, type SendWorker } from '@tidings/send-worker';
import type { Page } from 'playwright-core';
import { callApi, organizationWithOwner, startStack, waitFor, type Stack } from './harness.ts';
import { expectPageFits, LONG_DOMAIN, LONG_EMAIL, LONG_NAME, LONG_URL } from './page-width.ts';

const OWNER = { email: 'owner@wide.test', password: 'correct horse battery' };

let stack: Stack;
let worker: SendWorker;
let page: Page;
let key = '';
let orgId = '';

beforeAll(async () => {
  stack = await startStack({ SANDBOX_OUTCOME_DELAY_MS: '100', WEBHOOK_ALLOW_LOOPBACK: 'true' });
  worker = await startSendWorker(stack.deps);
  const created = await organizationWithOwner(stack, { name: 'Wide', mode: 'test' }, OWNER);
  ({ orgId, page } = created);
  key = created.apiKey.key;
  await page.setViewportSize({ width: 1280, height: 800 });
}, 120_000);

afterAll(async () => {
  await worker?.close();
  await stack?.close();
});

const api = <T>(method: string, urlPath: string, body?: unknown) => callApi<T>(stack, key, method, urlPath, body);
const idOf = async (answer: Promise<{ id: string }>) => (await answer).id;

/** Opens `path`, does `act` when given, and expects the page shown to fit the window (page-width.ts). */
const expectFits = (path: string, act?: () => Promise<unknown>) => expectPageFits(page, `${stack.dashboardUrl}${path}`, path, act);

/** Fills the form's fields named in `fields`, clicks `button`, and waits for `shown` on the page that follows. */
const submit = (fields: Record<string, string>, button: string, shown: string) => async () => {
  for (const [name, value] of Object.entries(fields)) await page.fill(`input[name=${name}]`, value);
  await page.click(`button:has-text("${button}")`);
  await page.locator(shown).waitFor();
};

/** The ids the pages below name (`:draft` in a path), of the content created with long strings in it. */
const ids: Record<string, string> = {};

/** Every page and the long content it shows; a third column fills and sends a form of the page first. */
const PAGES: [path: string, content: string, act?: () => Promise<unknown>][] = [
  ['/overview', 'the totals of messages to the long address'],
  ['/messages', 'messages to the long address with long subjects'],
  ['/messages/:broadcastMessage', 'a broadcast email: its text part carries the long URL'],
  ['/sandbox', 'the test messages to the long address'],
  ['/sandbox/:message', 'a test email with the long URL in its text part'],
  ['/broadcasts', 'broadcasts with long names; template, segment and topic pickers naming them'],
  ['/broadcasts/:draft', 'a draft with a long name, its preview for the contact with the long address'],
  ['/broadcasts/:sent', 'a sent broadcast with a long name and its link, the long URL'],
  ['/broadcasts/:sent/cancel', 'the long name in the confirmation'],
  ['/broadcasts/:sent/retry-failed', 'the long name in the confirmation'],
  ['/broadcasts/:draft/delete', 'the long name in the confirmation'],
  ['/segments', 'a segment with a long name'],
  ['/segments/new', 'the criteria builder'],
  ['/segments/:segment', 'the long name, a condition on the long address, the contact matching it'],
  ['/segments/:segment/delete', 'the long name in the confirmation'],
  ['/domains', 'the long domain and its default sender on it'],
  ['/domains/:domain', 'the long domain as title, its DNS records, the default sender form'],
  ['/domains/:domain/delete', 'the long domain in the confirmation'],
  ['/phone-numbers', 'a number named with the long name'],
  ['/phone-numbers/available', 'the numbers for sale, and ours with the long name'],
  ['/phone-numbers/:number', 'the long name under the number'],
  ['/phone-numbers/:number/release', 'the long name in the confirmation'],
  ['/suppressions', 'a suppressed long address'],
  ['/suppressions/:suppression/lift', 'the long address in the confirmation'],
  ['/verifications', 'a code sent to the long address'],
  ['/contacts', 'a contact with the long address and long names'],
  ['/contacts/new', 'the form of a new contact'],
  ['/contacts/import', 'the CSV import'],
  ['/contacts/:contact', 'the long address and names, a topic with a long name'],
  ['/contacts/:contact/delete', 'the long names in the confirmation'],
  ['/topics', 'a topic with a long name, the long URL as description'],
  ['/topics/:topic', 'the long name and description'],
  ['/topics/:topic/delete', 'the long name in the confirmation'],
  ['/templates', 'a template with a long name'],
  ['/templates/:template', 'the editor with the long URL in each part, and its preview'],
  ['/templates/:template/versions', 'the changes between two versions of the long URL'],
  ['/templates/:template/delete', 'the long name in the confirmation'],
  ['/webhooks', 'an endpoint with a long URL'],
  ['/webhooks/:webhook', 'the endpoint’s long URL, its deliveries'],
  ['/webhooks/:webhook/deliveries/:delivery', 'a delivery whose payload names the endpoint’s long URL'],
  ['/webhooks/:webhook/rotate', 'the endpoint’s long URL in the confirmation'],
  ['/webhooks/:webhook/disable', 'the endpoint’s long URL in the confirmation'],
  ['/settings/api-keys', 'a key with a long name'],
  ['/settings/api-keys', 'a new key with a long name, shown once', submit({ name: LONG_NAME }, 'Create API key', '#new-key')],
  ['/settings/api-keys/:key/rotate', 'the long name in the confirmation'],
  ['/settings/api-keys/:key/delete', 'the long name in the confirmation'],
  ['/settings/members', 'a member with the long address and a long name'],
  ['/settings/members', 'an invitation link for a long address, shown once', submit({ email: `invited.${LONG_EMAIL}` }, 'Create invitation link', '#invite-link')],
  ['/settings/members/:member/remove', 'the long address and name in the confirmation'],
  ['/settings/members/:member/reset-two-factor', 'the long address and name in the confirmation'],
  ['/settings/audit-log', 'the changes above, the actor picker naming the member with the long address and the key with a long name'],
  ['/settings/account', 'the password and two-factor forms'],
  ['/settings/account/two-factor', 'the enrolment with its QR code and secret'],
  ['/no-such-page', 'the page-not-found page'],
];

describe('pages at 1,280 px with long content', () => {
  let message: Message;

  beforeAll(async () => {
    ids.webhook = await idOf(api('POST', '/v1/webhooks', { url: `http://127.0.0.1:9/${'hooks/'.repeat(30)}receive`, events: ['message.delivered'] }));
    ids.delivery = await idOf(api('POST', `/v1/webhooks/${ids.webhook}/test`));
    message = await api<Message>('POST', '/v1/messages', {
      channelType: 'email',
      to: LONG_EMAIL,
      subject: `${LONG_NAME} and more`,
      html: `<p>Read <a href="${LONG_URL}">the announcement</a></p>`,
      text: `Read the announcement: ${LONG_URL}\n\nOr unsubscribe: ${LONG_URL}/unsubscribe`,
      attachments: [{ filename: 'report.txt', content: Buffer.from('the quarter in numbers').toString('base64') }],
      tags: ['announcement'],
    });
    ids.message = message.id;
    await waitFor(
      () => api<Message>('GET', `/v1/messages/${message.id}`),
      (m) => m.status === 'delivered',
    );
    ids.contact = await idOf(api('POST', '/v1/contacts', { email: LONG_EMAIL, firstName: LONG_NAME, lastName: LONG_NAME }));
    ids.template = await idOf(api('POST', '/v1/templates', { name: LONG_NAME, channelType: 'email', subject: LONG_NAME, html: `<p>${LONG_URL}</p>`, text: LONG_URL }));
    await api('PATCH', `/v1/templates/${ids.template}`, { html: `<p><a href="${LONG_URL}">${LONG_URL}</a></p>`, text: `${LONG_URL}\n${LONG_URL}/more` });
    ids.topic = await idOf(api('POST', '/v1/topics', { name: LONG_NAME, description: LONG_URL, defaultSubscription: 'opt_out' }));
    ids.segment = await idOf(api('POST', '/v1/segments', { name: LONG_NAME, criteria: { all: [{ field: 'email', op: 'eq', value: LONG_EMAIL }] } }));
    const broadcast = (name: string, topicId?: string) =>
      idOf(api<Broadcast>('POST', '/v1/broadcasts', { name, channelType: 'email', templateId: ids.template, segmentId: ids.segment, topicId }));
    ids.draft = await broadcast(LONG_NAME, ids.topic);
    ids.sent = await broadcast(`${LONG_NAME}Sent`);
    await api('POST', `/v1/broadcasts/${ids.sent}/send`, {});
    const sentByIt = await waitFor(
      () => api<{ data: Message[] }>('GET', `/v1/messages?broadcastId=${ids.sent}`),
      (list) => list.data.length > 0,
    );
    ids.broadcastMessage = sentByIt.data[0]!.id;
    // after the sends: the default sender on the long domain is for show
    ids.domain = await idOf(api('POST', '/v1/email-domains', { name: LONG_DOMAIN }));
    await api('PUT', `/v1/email-domains/${ids.domain}/default-sender`, { fromName: LONG_NAME, fromAddress: `announcements@${LONG_DOMAIN}` });
    const [available] = (await api<{ data: { number: string }[] }>('GET', '/v1/phone-numbers/available?country=US')).data;
    ids.number = await idOf(api('POST', '/v1/phone-numbers', { number: available!.number, friendlyName: LONG_NAME }));
    ids.suppression = await idOf(api('POST', '/v1/suppressions', { channelType: 'email', address: `blocked.${LONG_EMAIL}` }));
    await api('POST', '/v1/verifications', { channelType: 'email', to: LONG_EMAIL });
    ids.key = await idOf(api('POST', '/v1/api-keys', { name: LONG_NAME, permission: 'sending' }));
    ids.member = (await createUser(stack.deps, { orgId, email: LONG_EMAIL, password: OWNER.password, role: 'member', name: LONG_NAME })).user.id;
  }, 60_000);

  // the row as one rest parameter: jest would take a third parameter the two-column rows leave out for `done`
  it.each(PAGES)('fits %s: %s', async (...[path, , act]) => {
    await expectFits(
      path.replace(/:(\w+)/g, (_, name: string) => ids[name]!),
      act,
    );
  });

  it('lays an email’s message page out in two columns with its long text part wrapped, and links its attachment', async () => {
    await expectFits(`/messages/${message.id}`);
    // the Details column keeps a readable width: not one or two letters per line
    const detailsWidth = await page
      .locator('.facts dd')
      .first()
      .evaluate((dd) => dd.getBoundingClientRect().width);
    expect(detailsWidth).toBeGreaterThan(150);
    await expect(page.locator('.text-part').textContent()).resolves.toContain(LONG_URL);
    const link = page.locator('.attachments a', { hasText: 'report.txt' });
    const href = await link.getAttribute('href');
    expect(href).toBe(`/messages/${message.id}/attachments/${message.attachments[0]!.id}`);
    const download = await page.request.get(`${stack.dashboardUrl}${href}`);
    expect(download.status()).toBe(200);
    await expect(download.text()).resolves.toBe('the quarter in numbers');
  });

  it('fits every page of the sidebar, its tabs, and the first item of each list in the window (pages added later too)', async () => {
    await page.goto(`${stack.dashboardUrl}/overview`);
    const links = await page.locator('.sidebar a[href^="/"]').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
    // Queues is Bull Board's own page
    const paths = links.filter((href) => !href.startsWith('/admin/queues') && href !== '/sign-out');
    expect(paths.length).toBeGreaterThan(10);
    const listed = PAGES.map(([path]) => path);
    for (const path of paths) {
      expect(listed).toContain(path); // a new sidebar page gets a row in PAGES, with its long content
      await expectFits(path);
      const tabs = await page.locator('main .tabs a[href^="/"]').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
      for (const tab of tabs.filter((href) => !paths.includes(href))) await expectFits(tab);
      const first = await page
        .locator(`main tbody tr a[href^="${path}/"]`)
        .first()
        .getAttribute('href', { timeout: 500 })
        .catch(() => null);
      if (first) await expectFits(first);
    }
  });

  it('offers to replay a webhook’s deliveries since a time, all of them unless “only those that failed” is ticked', async () => {
    await expectFits(`/webhooks/${ids.webhook}`);
    const onlyFailed = page.locator('.replay-form input[name=onlyFailed]');
    await expect(onlyFailed.isChecked()).resolves.toBe(false);
    const box = (await onlyFailed.boundingBox())!;
    expect(box.width).toBeGreaterThanOrEqual(12);
    expect(box.height).toBeGreaterThanOrEqual(12);
  });
});
