// Browser tests of Topics and the preference page: a real chromium drives the real dashboard and the API's public
// pages over Postgres and Redis.
import { createBroadcast, createContact, createTemplate, unsubscribeToken } from '@tidings/core';
import type { Page } from 'playwright-core';
import { organizationWithOwner, screenshotPath, startStack, type Stack } from './harness.ts';

const OWNER = { email: 'owner@topics.test', password: 'correct horse battery' };

let stack: Stack;
let page: Page;
let orgId: string;

beforeAll(async () => {
  stack = await startStack();
  ({ orgId, page } = await organizationWithOwner(stack, { name: 'Northwind Letters', mode: 'live' }, OWNER));
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

const shot = (name: string) => page.screenshot({ path: screenshotPath(name), fullPage: true });
const topicNamed = (name: string) => stack.deps.db.topic.findFirstOrThrow({ where: { orgId, name } });

describe('topics in a browser', () => {
  it('creates, edits and deletes topics on the Topics page; a nameless one is refused next to its field', async () => {
    await page.click('.sidebar a:has-text("Topics")');
    await page.click('button:has-text("Create topic")'); // required name: the browser stops it
    expect(await stack.deps.db.topic.count({ where: { orgId } })).toBe(0);
    await page.fill('input[name=name]', '   ');
    await page.click('button:has-text("Create topic")');
    await expect(page.locator('input[name=name][aria-invalid=true]').count()).resolves.toBe(1);

    await page.fill('input[name=name]', 'Product news');
    await page.fill('input[name=description]', 'What we shipped this month');
    await page.selectOption('select[name=defaultSubscription]', 'opt_out');
    await page.click('button:has-text("Create topic")');
    await expect(page.locator('.flash').textContent()).resolves.toBe('The topic Product news is created.');
    for (const name of ['Weekly digest', 'Beta testers', 'Old news']) {
      await page.fill('input[name=name]', name);
      await page.click('button:has-text("Create topic")');
    }
    await expect(page.locator('tr[data-topic-id]').count()).resolves.toBe(4);

    await page.click('tr[data-topic-id] a:has-text("Beta testers")');
    await page.selectOption('select[name=visibility]', 'private');
    await page.click('button:has-text("Save changes")');
    await expect(page.locator('.flash').textContent()).resolves.toBe('The topic Beta testers is saved.');
    expect(await topicNamed('Beta testers')).toMatchObject({ visibility: 'private', defaultSubscription: 'opt_in' });

    await page.goto(`${stack.dashboardUrl}/topics`);
    await page.click('tr[data-topic-id] a:has-text("Old news")');
    await page.click('a:has-text("Delete topic")');
    await page.click('button:has-text("Delete topic")');
    await expect(page.locator('.flash').textContent()).resolves.toBe('The topic Old news is deleted.');
    await expect(page.locator('tr[data-topic-id]').allTextContents()).resolves.toEqual([
      expect.stringContaining('Beta testers'),
      expect.stringContaining('Weekly digest'),
      expect.stringContaining('Product news'),
    ]);
    await shot('topics-list');
  });

  it("shows a contact's topics on its page and saves them; a broadcast is created for a topic", async () => {
    const contact = await createContact(stack.deps, orgId, { email: 'ada@example.com', emailSubscribed: true, smsSubscribed: true });
    const [news, digest] = [await topicNamed('Product news'), await topicNamed('Weekly digest')];
    await page.goto(`${stack.dashboardUrl}/contacts/${contact.id}`);
    const row = (id: string) => page.locator(`#contact-topics label[data-topic-id="${id}"]`);
    await expect(row(news.id).textContent()).resolves.toContain('never chose (opt-out)');
    await expect(row(news.id).locator('input[type=checkbox]').isChecked()).resolves.toBe(true);
    await expect(row(digest.id).locator('input[type=checkbox]').isChecked()).resolves.toBe(false);
    await row(news.id).locator('input[type=checkbox]').uncheck();
    await row(digest.id).locator('input[type=checkbox]').check();
    await page.click('button:has-text("Save topics")');
    await expect(page.locator('.flash').textContent()).resolves.toBe('The topics are saved.');
    await expect(row(news.id).textContent()).resolves.toContain('unsubscribed');
    expect((await stack.deps.db.contact.findUniqueOrThrow({ where: { id: contact.id } })).topics).toMatchObject({ [news.id]: false, [digest.id]: true });
    await shot('contact-topics');

    await createTemplate(stack.deps, orgId, { name: 'Letter', channelType: 'email', subject: 'Letter', text: 'Your choices: {{ preferencesUrl }}' });
    await page.goto(`${stack.dashboardUrl}/broadcasts`);
    await page.fill('input[name=name]', 'Digest of May');
    await page.selectOption('select[name=topicId]', digest.id);
    await page.click('button:has-text("Create draft")');
    await expect(page.locator('.facts.card').textContent()).resolves.toContain('Weekly digest: its members only');
    expect(await stack.deps.db.broadcast.findFirstOrThrow({ where: { orgId, name: 'Digest of May' } })).toMatchObject({ topicId: digest.id });
  });

  it('the preference page works without JavaScript: names the organization, lists the public topics, saves, unsubscribes and resubscribes', async () => {
    const contact = await createContact(stack.deps, orgId, { email: 'bob@example.com', emailSubscribed: true, smsSubscribed: true });
    const template = await stack.deps.db.template.findFirstOrThrow({ where: { orgId } });
    const broadcast = await createBroadcast(stack.deps, orgId, 'test', { name: 'Letter', channelType: 'email', templateId: template.id });
    await stack.deps.db.broadcast.update({ where: { id: broadcast.id }, data: { mode: 'live' } }); // a live broadcast's links change the contact
    const secret = stack.deps.config.broadcasts.unsubscribeSecret;
    const [news, digest] = [await topicNamed('Product news'), await topicNamed('Weekly digest')];
    const visitor = await stack.browser.newPage();
    try {
      // the unsubscribe page names the organization and leads to the preference page
      await visitor.goto(`${stack.apiUrl}/u/${unsubscribeToken(secret, { contactId: contact.id, broadcastId: broadcast.id })}`);
      await expect(visitor.locator('.org').textContent()).resolves.toBe('Northwind Letters');
      await visitor.click('a:has-text("Choose what you receive instead")');
      expect(new URL(visitor.url()).pathname).toBe(`/p/${unsubscribeToken(secret, { contactId: contact.id, broadcastId: broadcast.id }, 'preferences')}`);
      await expect(visitor.locator('.org').textContent()).resolves.toBe('Northwind Letters');
      // plain forms that post back: nothing for a script to do
      await expect(visitor.locator('script').count()).resolves.toBe(0);
      await expect(visitor.locator('label').allTextContents()).resolves.toEqual([expect.stringContaining('Product news'), expect.stringContaining('Weekly digest')]); // Beta testers is private
      await visitor.screenshot({ path: screenshotPath('preference-page'), fullPage: true });
      await visitor.locator(`input[value="${news.id}"][type=checkbox]`).uncheck();
      await visitor.locator(`input[value="${digest.id}"][type=checkbox]`).check();
      await visitor.click('button:has-text("Save preferences")');
      await expect(visitor.locator('[role=status]').textContent()).resolves.toBe('Your preferences are saved.');
      expect((await stack.deps.db.contact.findUniqueOrThrow({ where: { id: contact.id } })).topics).toEqual({ [news.id]: false, [digest.id]: true });

      await visitor.click('button:has-text("Unsubscribe from everything")');
      expect(await stack.deps.db.contact.findUniqueOrThrow({ where: { id: contact.id } })).toMatchObject({ emailSubscribed: false });
      await visitor.click('button:has-text("Resubscribe")');
      expect(await stack.deps.db.contact.findUniqueOrThrow({ where: { id: contact.id } })).toMatchObject({ emailSubscribed: true });
      await expect(visitor.locator('button:has-text("Unsubscribe from everything")').count()).resolves.toBe(1);

      const forged = await visitor.goto(`${stack.apiUrl}/p/${contact.id}.${broadcast.id}.${'A'.repeat(43)}`);
      expect(forged?.status()).toBe(404);
    } finally {
      await visitor.close();
    }
  });
});
