// Broadcasts in a real chromium: create a draft from a template and a segment, preview it for one contact, send it
// in test mode and watch the progress reach every recipient. A real send-worker process (as operators run it) does
// the fan-out and the sandbox sends.
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createContact, createOrganization, createSegment, createTemplate, createUser } from '@tidings/core';
import { spawnService, waitFor } from '@tidings/testing';
import type { Page } from 'playwright-core';
import { screenshotPath, signedInPage, startStack, type Stack } from './harness.ts';

const OWNER = { email: 'owner@acme.test', password: 'correct horse battery' };
const PAYING = 24;
// the sandbox reports outcomes quickly, and the outbox is relayed often, so a test sees the broadcast finish
const ENV = { SANDBOX_OUTCOME_DELAY_MS: '200', OUTBOX_RELAY_INTERVAL_MS: '500', OUTBOX_RELAY_GRACE_MS: '500' };
const NEWSLETTER_HTML = `<div style="max-width:480px;margin:16px auto;padding:24px;border-radius:8px;background:#fff;font-family:Helvetica,Arial,sans-serif">
<h1 id="greeting" style="color:rgb(79, 70, 229);font-size:22px">{{ month }} at Acme, {{ contact.firstName }}</h1>
<p style="color:#374151">Your {{ contact.attributes.plan }} plan got three new features this month.</p>
<p style="font-size:12px"><a href="{{ unsubscribeUrl }}">Unsubscribe</a></p></div>`;

let stack: Stack;
let worker: ChildProcess;
let page: Page;

beforeAll(async () => {
  stack = await startStack(ENV);
  worker = spawnService(path.resolve(__dirname, '../../send-worker/src/worker.ts'), stack.deps.config, { NODE_ENV: 'test', ...ENV });
  const { organization } = await createOrganization(stack.deps, { name: 'Acme', mode: 'test' });
  const orgId = organization.id;
  await createUser(stack.deps, { orgId, email: OWNER.email, password: OWNER.password, role: 'owner' });
  await createTemplate(stack.deps, orgId, { name: 'monthly-news', channelType: 'email', subject: '{{ month }} at Acme', html: NEWSLETTER_HTML });
  await createSegment(stack.deps, orgId, { name: 'Pro customers', criteria: { all: [{ field: 'attributes.plan', op: 'eq', value: 'pro' }] } });
  // contacts are listed newest first: Ada heads the preview's list
  for (let i = 3; i <= PAYING; i++)
    await createContact(stack.deps, orgId, { email: `pro${i}@example.com`, firstName: `Pro ${i}`, attributes: { plan: 'pro' }, emailSubscribed: true, smsSubscribed: true });
  await createContact(stack.deps, orgId, {
    email: 'grace@example.com',
    firstName: 'Grace',
    lastName: 'Hopper',
    attributes: { plan: 'pro' },
    emailSubscribed: true,
    smsSubscribed: true,
  });
  await createContact(stack.deps, orgId, {
    email: 'ada@example.com',
    firstName: 'Ada',
    lastName: 'Lovelace',
    attributes: { plan: 'pro' },
    emailSubscribed: true,
    smsSubscribed: true,
  });
  await createContact(stack.deps, orgId, { email: 'free@example.com', firstName: 'Free', attributes: { plan: 'free' }, emailSubscribed: true, smsSubscribed: true });
  page = await signedInPage(stack, OWNER);
}, 120_000);

afterAll(async () => {
  if (worker && worker.exitCode === null) {
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.kill('SIGTERM');
    await exited;
  }
  await stack?.close();
});

/** A full-page picture; the preview frame is scrolled into view first (chromium paints no frame it has not shown). */
async function shot(name: string) {
  if (await page.locator('#preview iframe').count()) await page.locator('#preview iframe').scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath(name), fullPage: true });
}
const frame = () => page.frameLocator('#preview iframe');
const count = (name: string) => page.locator(`#progress [data-count="${name}"] dd`).textContent();

describe('broadcasts in a browser', () => {
  it('creates a draft from a template and a segment, and previews it for one contact, then another', async () => {
    await page.click('.sidebar a:has-text("Broadcasts")');
    await expect(page.locator('.empty-state h3').textContent()).resolves.toBe('No broadcasts yet');
    await page.fill('input[name=name]', 'November newsletter');
    await page.selectOption('select[name=templateId]', { label: 'monthly-news (Email)' });
    await page.selectOption('select[name=segmentId]', { label: 'Segment: Pro customers' });
    await page.selectOption('select[name=mode]', 'test');
    await page.fill('textarea[name=variables]', '{"month": "November"}');
    await page.click('button:has-text("Create draft")');
    await page.waitForURL(/\/broadcasts\/brd_/);
    await expect(page.locator('#progress .badge').textContent()).resolves.toBe('draft');
    await expect(page.locator('#preview-title').textContent()).resolves.toBe('What Ada Lovelace · ada@example.com gets');
    await expect(frame().locator('#greeting').textContent()).resolves.toBe('November at Acme, Ada');
    await expect(page.locator('#preview iframe').getAttribute('sandbox')).resolves.toBe('allow-popups allow-popups-to-escape-sandbox');
    await expect(page.locator('select[name=contact] option').count()).resolves.toBe(PAYING); // the free contact is not a recipient

    await page.selectOption('select[name=contact]', { label: 'Grace Hopper · grace@example.com' }); // the script submits the choice
    await page.waitForURL(/contact=con_/);
    await expect(frame().locator('#greeting').textContent()).resolves.toBe('November at Acme, Grace');
    await shot('broadcast-draft');
  });

  it('sends now in test mode: the progress follows the fan-out until every recipient is done', async () => {
    await page.click('button:has-text("Send now")');
    await page.waitForURL((url) => !url.search && /\/broadcasts\/brd_/.test(url.pathname));
    await expect(page.locator('.flash').textContent()).resolves.toContain('Sending');
    // no reload: the page's script refreshes the progress until the broadcast is done
    await waitFor(async () => (await page.locator('#progress .badge').textContent()) === 'sent', 60_000, 'the broadcast to be sent');
    // sent: every message is with the provider (the sandbox reports delivery a moment later)
    const handed = Number(await count('sent')) + Number(await count('delivered'));
    expect(handed).toBe(PAYING);
    await expect(count('recipients')).resolves.toBe(String(PAYING));
    await expect(count('queued')).resolves.toBe('0');
    const bar = page.locator('#progress progress');
    await expect(bar.getAttribute('value')).resolves.toBe(String(PAYING));
    await expect(bar.getAttribute('max')).resolves.toBe(String(PAYING));
    await expect(page.locator('#progress[data-refresh]').count()).resolves.toBe(0);
    await expect(page.locator('#progress dl.facts').textContent()).resolves.toMatch(/Started.*Completed/);
    await expect(page.locator('a:has-text("Cancel broadcast")').count()).resolves.toBe(0);
    await shot('broadcast-sent');
  });

  it('lists the broadcast with its progress', async () => {
    await page.click('.sidebar a:has-text("Broadcasts")');
    await expect(page.locator('tbody tr').count()).resolves.toBe(1);
    await expect(page.locator('tbody tr .badge').textContent()).resolves.toBe('sent');
    await expect(page.locator('tbody tr .broadcast-progress small').textContent()).resolves.toBe(`${PAYING} of ${PAYING}`);
    await shot('broadcasts-list');
  });
});
