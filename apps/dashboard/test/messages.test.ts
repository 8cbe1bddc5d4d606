// Messages and the sandbox inbox through HTTP (app.request), over real Postgres and Redis.
import { claimForSending, createUser, markFailed, newId, receiveInboundMessage, recordTrackingHit, sendMessage, sendMessages } from '@tidings/core';
import { createTestDeps, makeOrganization } from '@tidings/testing';
import { createDashboard } from '../src/app.ts';
import { dashboardClient } from './client.ts';

// With a Resend key configured, live email goes to 'resend' and test email to the sandbox: both kinds exist. No
// worker runs here, so nothing is sent anywhere.
const deps = createTestDeps({ RESEND_API_KEY: 're_not_used_by_these_tests' });
const app = createDashboard(deps);
afterAll(() => deps.close());

const PASSWORD = 'a good long password';
let counter = 0;

async function signedInOrg() {
  const { orgId } = await makeOrganization(deps);
  const email = `m${++counter}-${Date.now()}@messages.test`;
  await createUser(deps, { orgId, email, password: PASSWORD, role: 'member' });
  const browser = dashboardClient(app);
  expect((await browser.signIn(email, PASSWORD)).status).toBe(303);
  return { orgId, browser };
}

/** Live email needs a verified domain with a default sender. */
async function withVerifiedDomain(orgId: string) {
  const data = { id: newId('dom'), orgId, name: 'acme.test', status: 'verified' as const, provider: 'sandbox', records: [], defaultFromAddress: 'hello@acme.test' };
  await deps.db.emailDomain.create({ data });
}

/** The ids of the message rows of a list page, in page order. */
const rowIds = (html: string) => [...html.matchAll(/data-message-id="([^"]+)"/g)].map((m) => m[1]);

describe('the messages list', () => {
  it('shows only this organization’s messages, newest first, and filters by status, channel, recipient and day', async () => {
    const { orgId, browser } = await signedInOrg();
    await withVerifiedDomain(orgId);
    const other = await makeOrganization(deps);
    const foreign = await sendMessage({ deps, orgId: other.orgId, mode: 'test' }, { channelType: 'email', to: 'secret@other.test', subject: 'Their secret subject', text: 'x' });
    const email = await sendMessage({ deps, orgId, mode: 'test' }, { channelType: 'email', to: 'Ada@Example.com', subject: 'Welcome, Ada', text: 'Hi' });
    const sms = await sendMessage({ deps, orgId, mode: 'test' }, { channelType: 'sms', to: '+14155550123', body: 'Your code is 123456' });
    const failed = await sendMessage({ deps, orgId, mode: 'live' }, { channelType: 'email', to: 'grace@example.com', subject: 'Invoice', text: 'Due' });
    await claimForSending(deps, failed.id, 'transactional');
    await markFailed(deps, failed.id, { code: 'INVALID_FROM', message: 'The domain is not verified' });

    const all = await browser.get('/messages');
    expect(all.status).toBe(200);
    expect(rowIds(all.html)).toEqual([failed.id, sms.id, email.id]);
    expect(all.html).toContain('Welcome, Ada');
    expect(all.html).toContain('Your code is 123456');
    expect(all.html).not.toContain('Their secret subject');
    expect(all.html).not.toContain(foreign.id);

    expect(rowIds((await browser.get('/messages?status=failed')).html)).toEqual([failed.id]);
    expect(rowIds((await browser.get('/messages?channelType=sms')).html)).toEqual([sms.id]);
    expect(rowIds((await browser.get('/messages?to=ADA%40example.com')).html)).toEqual([email.id]);
    const today = new Date().toISOString().slice(0, 10);
    expect(rowIds((await browser.get(`/messages?since=${today}&until=${today}`)).html)).toHaveLength(3);
    const none = await browser.get('/messages?until=2020-01-01');
    expect(rowIds(none.html)).toEqual([]);
    expect(none.html).toContain('No messages match these filters');
    expect(rowIds((await browser.get(`/messages?to=secret%40other.test`)).html)).toEqual([]);

    const bad = await browser.get('/messages?status=lost&since=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('These filters cannot be used: Status:');
    expect(bad.html).toContain('Created from:');
  });

  it('pages with a cursor, keeping the filters, and never repeats or skips a message', async () => {
    const { orgId, browser } = await signedInOrg();
    const items = Array.from({ length: 53 }, (_, i) => ({ channelType: 'sms', to: '+14155550123', body: `Message ${i}` }));
    await sendMessages({ deps, orgId, mode: 'test' }, items);
    await sendMessage({ deps, orgId, mode: 'test' }, { channelType: 'email', to: 'ada@example.com', subject: 'Not an SMS', text: 'x' });

    const first = await browser.get('/messages?channelType=sms');
    const older = /href="(\/messages\?channelType=sms&amp;cursor=[^"]+)"/.exec(first.html)?.[1];
    expect(older).toBeDefined();
    const second = await browser.get(older!.replace(/&amp;/g, '&'));
    const seen = [...rowIds(first.html), ...rowIds(second.html)];
    expect(rowIds(first.html)).toHaveLength(50);
    expect(new Set(seen).size).toBe(53);
    expect(second.html).not.toContain('Older messages');
    expect(second.html).not.toContain('Not an SMS');

    expect((await browser.get('/messages?cursor=not-a-cursor')).status).toBe(400);
  });

  it('filters by tag, and shows why a message failed in the list, escaped', async () => {
    const { orgId, browser } = await signedInOrg();
    const tagged = await sendMessage({ deps, orgId, mode: 'test' }, { channelType: 'sms', to: '+14155550124', body: 'Tagged', tags: ['onboarding'] });
    const failed = await sendMessage({ deps, orgId, mode: 'test' }, { channelType: 'sms', to: '+14155550125', body: 'Fails', tags: ['billing'] });
    await claimForSending(deps, failed.id, 'transactional');
    await markFailed(deps, failed.id, { code: 'PROVIDER_ERROR', message: 'Carrier said <b>no</b>' });
    const other = await makeOrganization(deps);
    await sendMessage({ deps, orgId: other.orgId, mode: 'test' }, { channelType: 'sms', to: '+14155550126', body: 'Theirs', tags: ['onboarding'] });

    expect(rowIds((await browser.get('/messages?tag=onboarding')).html)).toEqual([tagged.id]);
    expect(rowIds((await browser.get('/messages?tag=none')).html)).toEqual([]);
    const list = await browser.get('/messages');
    expect(list.html).toContain('Carrier said &lt;b&gt;no&lt;/b&gt;</small>');
    expect(list.html).not.toContain('<b>no</b>');
    expect(list.html).toContain('name="tag"');
    const tooLong = await browser.get(`/messages?tag=${'x'.repeat(101)}`);
    expect(tooLong.status).toBe(400);
    expect(tooLong.html).toContain('Tag:');
  });

  it('marks an inbound message and names its sender', async () => {
    const { orgId, browser } = await signedInOrg();
    const outbound = await sendMessage({ deps, orgId, mode: 'test' }, { channelType: 'sms', to: '+14155550123', body: 'Your code is 123456' });
    const { message: inbound } = await receiveInboundMessage(deps, { provider: 'sandbox', orgId, channelType: 'sms', from: '+14155550188', to: '+15005550006', body: 'Thanks!' });
    const page = await browser.get('/messages');
    const rowOf = (id: string) => page.html.slice(page.html.indexOf(`data-message-id="${id}"`)).split('</tr>')[0]!;
    expect(rowIds(page.html)).toEqual([inbound!.id, outbound.id]);
    expect(rowOf(inbound!.id)).toContain('inbound');
    expect(rowOf(inbound!.id)).toContain('from +14155550188');
    expect(rowOf(outbound.id)).not.toContain('inbound');
    expect((await browser.get(`/messages/${inbound!.id}`)).html).toContain('received');
  });

  it('says how to send the first message when there is none', async () => {
    const { browser } = await signedInOrg();
    const page = await browser.get('/messages');
    expect(page.html).toContain('No messages yet');
    expect(page.html).toContain('/v1/messages -H &quot;Authorization: Bearer sk_test_...&quot;');
  });

  it('asks visitors to sign in first', async () => {
    expect((await dashboardClient(app).get('/messages')).location).toBe('/sign-in?next=%2Fmessages');
    expect((await dashboardClient(app).get('/sandbox/msg_x')).location).toBe('/sign-in?next=%2Fsandbox%2Fmsg_x');
  });
});

describe('a message’s page', () => {
  it('shows its fields, content and status history with errors', async () => {
    const { orgId, browser } = await signedInOrg();
    await withVerifiedDomain(orgId);
    const message = await sendMessage(
      { deps, orgId, mode: 'live' },
      {
        channelType: 'email',
        to: 'grace@example.com',
        subject: 'Invoice #42',
        html: '<p>Amount due</p>',
        text: 'Amount due (text)',
        tags: ['billing'],
        metadata: { invoice: '42' },
      },
    );
    await claimForSending(deps, message.id, 'transactional');
    await markFailed(deps, message.id, { code: 'INVALID_FROM', message: 'The domain is not verified' });

    const page = await browser.get(`/messages/${message.id}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<h1>Invoice #42</h1>');
    for (const text of ['grace@example.com', 'resend', 'billing', '{&quot;invoice&quot;:&quot;42&quot;}', 'Amount due (text)', 'INVALID_FROM: The domain is not verified']) {
      expect(page.html).toContain(text);
    }
    const history = page.html.slice(page.html.indexOf('Status history'));
    const statuses = [...history.matchAll(/class="badge status-\w+">(\w+)</g)].map((m) => m[1]);
    expect(statuses).toEqual(['queued', 'sending', 'failed']);
    expect(history).toContain('<code>message.queued</code>');
    expect(history).toContain('<code>message.failed</code>');
    expect(page.html).not.toContain('in the sandbox inbox');
  });

  it('says when and why a waiting message waits (deferredUntil, deferredReason)', async () => {
    const { orgId, browser } = await signedInOrg();
    await withVerifiedDomain(orgId);
    const message = await sendMessage({ deps, orgId, mode: 'live' }, { channelType: 'email', to: 'ida@example.com', subject: 'Later', text: 'x' });
    await claimForSending(deps, message.id, 'transactional');
    const until = new Date(Date.now() + 60_000);
    // as the send-worker records a provider's 429
    await deps.db.message.update({ where: { id: message.id }, data: { deferredUntil: until, deferredReason: 'provider_rate_limit' } });
    const page = await browser.get(`/messages/${message.id}`);
    expect(page.html).toMatch(new RegExp(`<dt>Waiting</dt><dd>until <time datetime="${until.toISOString()}"[^>]*>[^<]*</time> for its provider&#39;s rate limit</dd>`));
    await markFailed(deps, message.id, { code: 'X', message: 'gone' });
    expect((await browser.get(`/messages/${message.id}`)).html).not.toContain('<dt>Waiting</dt>');
  });

  it('is not found for another organization’s message, and shows nothing of it', async () => {
    const { browser } = await signedInOrg();
    const other = await makeOrganization(deps);
    const theirs = await sendMessage(
      { deps, orgId: other.orgId, mode: 'test' },
      { channelType: 'email', to: 'private@other.test', subject: 'Private plans', html: '<p>Secret body</p>' },
    );
    for (const path of [`/messages/${theirs.id}`, `/sandbox/${theirs.id}`, '/messages/msg_does_not_exist']) {
      const res = await browser.get(path);
      expect(res.status).toBe(404);
      expect(res.html).toContain('Message not found');
      for (const secret of ['private@other.test', 'Private plans', 'Secret body']) expect(res.html).not.toContain(secret);
    }
  });
});

describe('the sandbox inbox', () => {
  it('lists only sandbox messages of this organization, by channel, and says what to do when empty', async () => {
    const { orgId, browser } = await signedInOrg();
    await withVerifiedDomain(orgId);
    const empty = await browser.get('/sandbox');
    expect(empty.html).toContain('Nothing in the sandbox yet');
    expect(empty.html).toContain('Mode: Test');

    const testEmail = await sendMessage({ deps, orgId, mode: 'test' }, { channelType: 'email', to: 'ada@example.com', subject: 'Test email', text: 'x' });
    const testSms = await sendMessage({ deps, orgId, mode: 'test' }, { channelType: 'sms', to: '+14155550123', body: 'Test SMS' });
    const live = await sendMessage({ deps, orgId, mode: 'live' }, { channelType: 'email', to: 'ada@example.com', subject: 'Live email', text: 'x' });
    expect(live.provider).toBe('resend');

    expect(rowIds((await browser.get('/sandbox')).html)).toEqual([testSms.id, testEmail.id]);
    expect(rowIds((await browser.get('/sandbox?channelType=email')).html)).toEqual([testEmail.id]);
    expect(rowIds((await browser.get('/sandbox?channelType=sms')).html)).toEqual([testSms.id]);
    expect((await browser.get(`/sandbox/${live.id}`)).status).toBe(404);
    expect((await browser.get(`/messages/${live.id}`)).status).toBe(200);
  });

  it('frames an email’s HTML with no permissions, escaped, under a policy that still refuses scripts', async () => {
    const { orgId, browser } = await signedInOrg();
    const html = `<p style="color:#123456">Hello "Ada" & 'friends'</p><script>parent.document.title='pwned'</script></iframe><script>alert(1)</script>`;
    const message = await sendMessage({ deps, orgId, mode: 'test' }, { channelType: 'email', to: 'ada@example.com', subject: 'Framed', html, text: 'Plain part' });

    for (const path of [`/sandbox/${message.id}`, `/messages/${message.id}`]) {
      const res = await browser.get(path);
      const page = res.html;
      const frames = [...page.matchAll(/<iframe[^>]*>/g)].map((m) => m[0]);
      expect(frames).toHaveLength(1);
      expect(frames[0]).toContain(' sandbox="allow-popups allow-popups-to-escape-sandbox"');
      // popups only (links open in a new tab): never scripts, forms, same origin or top navigation
      expect(frames[0]).not.toMatch(/allow-(scripts|forms|same-origin|top-navigation)/);
      expect(frames[0]).toContain(
        'srcdoc="&lt;base target=&quot;_blank&quot;&gt;&lt;p style=&quot;color:#123456&quot;&gt;Hello &quot;Ada&quot; &amp; &#39;friends&#39;&lt;/p&gt;&lt;script&gt;',
      );
      expect(page).not.toContain('<script>parent');
      expect(page).not.toContain('<script>alert');
      expect(page.match(/<\/iframe>/g)).toHaveLength(1);
      const policy = res.headers.get('content-security-policy')!;
      expect(policy).toContain("script-src 'self';");
      expect(policy).toContain("style-src 'self' 'unsafe-inline';");
      expect(page).toContain('Plain part');
    }
    // other pages keep the strict policy
    const list = await browser.get('/sandbox');
    expect(list.headers.get('content-security-policy')).toContain("style-src 'self';");
  });

  it('shows an SMS as a bubble with its segments', async () => {
    const { orgId, browser } = await signedInOrg();
    const sms = await sendMessage({ deps, orgId, mode: 'test' }, { channelType: 'sms', to: '+14155550123', body: 'Code <b>123456</b>' });
    const page = await browser.get(`/sandbox/${sms.id}`);
    expect(page.html).toContain('<p class="sms-bubble">Code &lt;b&gt;123456&lt;/b&gt;</p>');
    expect(page.html).toContain('1 segment ·');
    expect(page.html).not.toContain('<iframe');
  });
});

describe('recipients and attachments', () => {
  it('the sandbox inbox and the message page list cc, reply-to and attachments; the inbox downloads an attachment of this organization only', async () => {
    const { orgId, browser } = await signedInOrg();
    const bytes = Buffer.from('%PDF-1.4 invoice');
    const message = await sendMessage(
      { deps, orgId, mode: 'test' },
      {
        channelType: 'email',
        to: 'ada@example.com',
        cc: ['bo@example.com'],
        replyTo: 'help@example.com',
        subject: 'Invoice',
        text: 'Attached',
        attachments: [{ filename: 'invoice.pdf', content: bytes.toString('base64') }],
      },
    );
    const attachment = message.attachments[0]!;
    const inbox = await browser.get(`/sandbox/${message.id}`);
    expect(inbox.html).toContain('bo@example.com');
    expect(inbox.html).toContain('help@example.com');
    expect(inbox.html).toContain(`href="/sandbox/${message.id}/attachments/${attachment.id}"`);
    expect((await browser.get(`/messages/${message.id}`)).html).toContain('invoice.pdf');

    const download = await browser.get(`/sandbox/${message.id}/attachments/${attachment.id}`);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''invoice.pdf");
    expect(download.html).toBe(bytes.toString()); // the body as text: the bytes are ASCII

    const stranger = await signedInOrg();
    expect((await stranger.browser.get(`/sandbox/${message.id}/attachments/${attachment.id}`)).status).toBe(404);
  });
});

describe('opens and clicks on the message page', () => {
  it('shows the first open and each clicked link with its clicks, escaped', async () => {
    const { orgId, browser } = await signedInOrg();
    const link = 'https://shop.example.com/sale?a=1&b=<x>';
    const sent = await sendMessage(
      { deps, orgId, mode: 'test' },
      {
        channelType: 'email',
        to: 'ada@example.com',
        subject: 'Sale',
        html: `<a href="${link}">Sale</a>`,
        tracking: { clicks: true },
      },
    );
    expect(await recordTrackingHit(deps, { kind: 'open', messageId: sent.id }, 'test agent')).toBe(true);
    expect(await recordTrackingHit(deps, { kind: 'click', messageId: sent.id, url: link }, 'test agent')).toBe(true);
    expect(await recordTrackingHit(deps, { kind: 'click', messageId: sent.id, url: link }, 'test agent')).toBe(false); // the same click
    const page = await browser.get(`/messages/${sent.id}`);
    expect(page.status).toBe(200);
    const engagement = page.html.slice(page.html.indexOf('id="engagement"'));
    expect(engagement).toMatch(/<dt>Opens<\/dt><dd>1<\/dd>/);
    expect(engagement).toMatch(/<dt>Clicks<\/dt><dd>1<\/dd>/);
    expect(engagement).toContain('https://shop.example.com/sale?a=1&amp;b=&lt;x&gt;');
    expect(page.html).not.toContain('b=<x>');
    expect(page.html).toContain('First click');
  });
});
