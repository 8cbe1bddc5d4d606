import { outgoingEmail, readTrackingToken, trackingToken } from '@tidings/core';
import { messageOnceIn, startPipeline, waitFor } from './harness.ts';

// Tidings' own open and click tracking end to end: accepted through the API, sent by a real send-worker through the
// sandbox (test keys) and a real SMTP server (live keys), opened and clicked through the API's /o/ and /c/.
jest.setTimeout(60_000);

const PUBLIC_API_URL = 'https://api.tidings.test';
let h: Awaited<ReturnType<typeof startPipeline>>;
beforeAll(async () => {
  h = await startPipeline({ EMAIL_PROVIDERS: 'smtp', PUBLIC_API_URL, SANDBOX_OUTCOME_DELAY_MS: '50' });
  await h.startWorker();
});
afterAll(() => h.close());

type Api = Awaited<ReturnType<typeof h.testOrg>>['api'];

const HTML =
  '<html><body><p>Hi</p><a href="https://shop.example.com/sale?x=1&amp;y=2">Sale</a> <a href="mailto:help@acme.test">Mail us</a> ' +
  '<a href="#top">Top</a> <a href="tel:+14155550123">Call</a> <a href="https://api.tidings.test/u/con_1.brd_1.sig">Unsubscribe</a></body></html>';
const SALE = 'https://shop.example.com/sale?x=1&y=2';

const secret = () => h.deps.config.broadcasts.unsubscribeSecret;
const hrefsOf = (html: string) => [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
const pixelOf = (html: string) => /<img src="([^"]+)" width="1" height="1"/.exec(html)?.[1];
/** A GET of one of our public links, as a mail client makes it (no key, not following redirects). */
const hit = (url: string, userAgent = 'Mozilla/5.0 (tracking test)') => h.app.request(url.slice(PUBLIC_API_URL.length), { headers: { 'user-agent': userAgent } });
const get = async (api: Api, id: string) => (await api.get(`/v1/messages/${id}`)).body;
const until = (api: Api, id: string, statuses: string[]) => messageOnceIn(api, id, statuses, 20_000);
const activities = (m: { events: { status: string; link: string | null }[] }, kind: string) => m.events.filter((e) => e.status === kind);

/** The email the provider was handed, built again by the same function the send-worker used. */
async function handedToProvider(id: string) {
  const row = await h.deps.db.message.findUniqueOrThrow({ where: { id } });
  const email = await outgoingEmail(h.deps, row, {});
  return email.html ?? '';
}

describe('through the sandbox (test key)', () => {
  it('rewrites http(s) links and adds the pixel, keeps mailto, tel, anchors and unsubscribe links, and records each hit', async () => {
    const org = await h.testOrg();
    const sent = (await org.api.post('/v1/messages', { channelType: 'email', to: 'reader@example.com', subject: 'Sale', html: HTML, tracking: { opens: true, clicks: true } }))
      .body;
    await until(org.api, sent.id, ['delivered']);
    const html = await handedToProvider(sent.id);

    const hrefs = hrefsOf(html);
    expect(hrefs.slice(1)).toEqual(['mailto:help@acme.test', '#top', 'tel:+14155550123', 'https://api.tidings.test/u/con_1.brd_1.sig']);
    expect(hrefs[0]!.startsWith(`${PUBLIC_API_URL}/c/`)).toBe(true);
    const pixel = pixelOf(html)!;
    expect(pixel.startsWith(`${PUBLIC_API_URL}/o/`)).toBe(true);

    const image = await hit(pixel);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/gif');
    expect(image.headers.get('cache-control')).toContain('no-store');
    expect(
      Buffer.from(await image.arrayBuffer())
        .subarray(0, 6)
        .toString(),
    ).toBe('GIF89a');
    // a test message's link is shown on a page, never redirected through our host (anyone could sign one up)
    const click = await hit(hrefs[0]!);
    expect(click.status).toBe(200);
    expect(click.headers.get('location')).toBeNull();
    expect(click.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(await click.text()).toContain(`<a href="${SALE.replace(/&/g, '&amp;')}" rel="noopener noreferrer nofollow">`);
    // an open again: the first open per message is the one counted
    expect((await hit(pixel)).status).toBe(200);

    const message = await get(org.api, sent.id);
    expect(activities(message, 'opened')).toHaveLength(1);
    expect(activities(message, 'clicked').map((e) => e.link)).toEqual([SALE]);
    expect(message.openedAt).not.toBeNull();
    expect(message.clickedAt).not.toBeNull();
    const clicked = await h.deps.db.event.findMany({ where: { orgId: org.orgId, type: 'message.clicked' } });
    expect(clicked.map((e) => e.data)).toEqual([expect.objectContaining({ id: sent.id, link: SALE, userAgent: 'Mozilla/5.0 (tracking test)', mode: 'test' })]);
  });

  it('counts a click once when the provider reports it as well', async () => {
    const org = await h.testOrg();
    // the sandbox reports click@ recipients as clicking https://example.com/sandbox-click, as a provider that tracks clicks would
    const html = '<p><a href="https://example.com/sandbox-click">Go</a></p>';
    const sent = (await org.api.post('/v1/messages', { channelType: 'email', to: 'click@example.com', subject: 'Go', html, tracking: { clicks: true } })).body;
    await waitFor(async () => activities(await get(org.api, sent.id), 'clicked').length === 1, 20_000, 'the sandbox to report the click');
    const [link] = hrefsOf(await handedToProvider(sent.id));
    expect(pixelOf(await handedToProvider(sent.id))).toBeUndefined(); // opens were not asked for

    expect((await hit(link!)).status).toBe(200);
    expect(await (await hit(link!)).text()).toContain('https://example.com/sandbox-click');
    const message = await get(org.api, sent.id);
    expect(activities(message, 'clicked')).toHaveLength(1);
    expect(await h.deps.db.event.count({ where: { orgId: org.orgId, type: 'message.clicked' } })).toBe(1);
  });

  it('leaves an untracked send as it was written', async () => {
    const org = await h.testOrg();
    const sent = (await org.api.post('/v1/messages', { channelType: 'email', to: 'reader@example.com', subject: 'Plain', html: HTML })).body;
    await until(org.api, sent.id, ['delivered']);
    expect(await handedToProvider(sent.id)).toBe(HTML);
  });
});

describe('through SMTP (live key, the domain setting)', () => {
  it('sends the rewritten html over SMTP when the domain turns tracking on, and a send can turn it off', async () => {
    const org = await h.liveOrg();
    const domain = (await org.api.get('/v1/email-domains')).body.data[0];
    expect(domain).toMatchObject({ openTracking: false, clickTracking: false });
    const updated = await org.api.patch(`/v1/email-domains/${domain.id}`, { openTracking: true, clickTracking: true });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ openTracking: true, clickTracking: true });

    const tracked = (await org.api.post('/v1/messages', { channelType: 'email', to: 'reader@example.com', subject: 'Tracked', html: HTML })).body;
    const plain = (await org.api.post('/v1/messages', { channelType: 'email', to: 'reader@example.com', subject: 'Plain', html: HTML, tracking: { opens: false, clicks: false } }))
      .body;
    await until(org.api, tracked.id, ['sent']);
    await until(org.api, plain.id, ['sent']);
    const mailOf = (subject: string) => h.smtp.received.find((m) => m.parsed.subject === subject && m.envelope.from === 'hello@acme.test')!;
    const html = String(mailOf('Tracked').parsed.html);
    const hrefs = hrefsOf(html);
    expect(hrefs.slice(1)).toEqual(['mailto:help@acme.test', '#top', 'tel:+14155550123', 'https://api.tidings.test/u/con_1.brd_1.sig']);
    expect(readTrackingToken(secret(), 'click', hrefs[0]!.slice(`${PUBLIC_API_URL}/c/`.length))).toEqual({ kind: 'click', messageId: tracked.id, url: SALE });
    expect(readTrackingToken(secret(), 'open', pixelOf(html)!.slice(`${PUBLIC_API_URL}/o/`.length))).toEqual({ kind: 'open', messageId: tracked.id });
    expect(String(mailOf('Plain').parsed.html).trim()).toBe(HTML);

    expect((await hit(hrefs[0]!)).headers.get('location')).toBe(SALE);
    const message = await get(org.api, tracked.id);
    expect(activities(message, 'clicked').map((e) => e.link)).toEqual([SALE]);
    expect(message.openedAt).not.toBeNull(); // a click is an open too
  });

  it('refuses a test key changing the live domain, and another organization sees no domain', async () => {
    const org = await h.liveOrg();
    const other = await h.liveOrg();
    const domain = (await org.api.get('/v1/email-domains')).body.data[0];
    const testKey = (await org.api.post('/v1/api-keys', { name: 'test', mode: 'test' })).body;
    const asTest = await h.anonymous.patch(`/v1/email-domains/${domain.id}`, { clickTracking: true }, { authorization: `Bearer ${testKey.key}` });
    expect(asTest.status).toBe(403);
    expect((await other.api.patch(`/v1/email-domains/${domain.id}`, { clickTracking: true })).status).toBe(404);
    expect(await h.deps.db.emailDomain.findUniqueOrThrow({ where: { id: domain.id }, select: { clickTracking: true } })).toEqual({ clickTracking: false });
    expect((await org.api.patch(`/v1/email-domains/${domain.id}`, { clickTracking: 'yes' })).status).toBe(400);
  });
});

describe('the click redirect', () => {
  it('goes only where the signed token says: anything forged or tampered is 404 and records nothing', async () => {
    const org = await h.testOrg();
    const sent = (await org.api.post('/v1/messages', { channelType: 'email', to: 'reader@example.com', subject: 'x', html: HTML, tracking: { clicks: true } })).body;
    await until(org.api, sent.id, ['delivered']);
    const signed = trackingToken(secret(), { kind: 'click', messageId: sent.id, url: SALE });
    const [id, , signature] = signed.split('.');
    const elsewhere = Buffer.from('https://evil.example/phish').toString('base64url');

    // a query parameter never chooses the target
    const withParams = await h.app.request(`/c/${signed}?url=https://evil.example/&redirect=https://evil.example/`);
    expect(withParams.status).toBe(302);
    expect(withParams.headers.get('location')).toBe(SALE);
    for (const forged of [
      `${id}.${elsewhere}.${signature}`, // another link under a real signature
      trackingToken('not-the-server-secret-at-all', { kind: 'click', messageId: sent.id, url: 'https://evil.example/' }),
      trackingToken(secret(), { kind: 'open', messageId: sent.id }), // an open token is not a click token
      `${signed}x`,
      'nothing',
    ]) {
      const response = await h.app.request(`/c/${forged}`);
      expect(response.status).toBe(404);
      expect(response.headers.get('location')).toBeNull();
    }
    expect((await h.app.request(`/o/${signed}`)).status).toBe(404);
    expect(activities(await get(org.api, sent.id), 'clicked')).toHaveLength(1);
  });

  it('redirects a signed link of a message that is gone, recording nothing', async () => {
    const token = trackingToken(secret(), { kind: 'click', messageId: 'msg_gone', url: SALE });
    const response = await h.app.request(`/c/${token}`);
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(SALE);
    expect(await h.deps.db.messageStatusEvent.count({ where: { messageId: 'msg_gone' } })).toBe(0);
  });
});

describe('broadcast.links', () => {
  it("counts each link's clicks across a broadcast sent from a tracked domain; unsubscribe links stay ours; 404 for another organization and a test key", async () => {
    const org = await h.liveOrg();
    const domain = (await org.api.get('/v1/email-domains')).body.data[0];
    await org.api.patch(`/v1/email-domains/${domain.id}`, { clickTracking: true });
    const contacts = [
      { email: 'ann@example.com', firstName: 'Ann', attributes: { plan: 'pro' } },
      { email: 'ben@example.com', firstName: 'Ben', attributes: { plan: 'pro' } },
    ];
    expect((await org.api.post('/v1/contacts/bulk', { contacts })).body.errors).toEqual([]);
    const segment = (await org.api.post('/v1/segments', { name: 'Pros', criteria: { all: [{ field: 'attributes.plan', op: 'eq', value: 'pro' }] } })).body;
    const template = (
      await org.api.post('/v1/templates', {
        name: 'Links',
        channelType: 'email',
        subject: 'Links for {{ contact.firstName }}',
        html: '<a href="https://shop.example.com/sale">Sale</a> <a href="https://docs.example.com/">Docs</a> <a href="{{ unsubscribeUrl }}">Unsubscribe</a>',
      })
    ).body;
    const broadcast = (await org.api.post('/v1/broadcasts', { name: 'Links', channelType: 'email', templateId: template.id, segmentId: segment.id })).body;
    expect((await org.api.post(`/v1/broadcasts/${broadcast.id}/send`, {})).status).toBe(202);
    const mails = await waitFor(
      async () => {
        const found = ['Ann', 'Ben'].map((name) => h.smtp.received.find((m) => m.parsed.subject === `Links for ${name}`));
        return found.every(Boolean) ? found.map((m) => hrefsOf(String(m!.parsed.html))) : null;
      },
      60_000,
      'both broadcast emails over SMTP',
    );
    for (const hrefs of mails) {
      expect(hrefs.slice(0, 2).every((href) => href.startsWith(`${PUBLIC_API_URL}/c/`))).toBe(true);
      expect(hrefs[2]!.startsWith(`${PUBLIC_API_URL}/u/`)).toBe(true);
    }
    const [ann, ben] = mails as [string[], string[]];
    for (const link of [ann[0]!, ann[0]!, ben[0]!, ben[1]!]) expect((await hit(link)).status).toBe(302);

    const links = await org.api.get(`/v1/broadcasts/${broadcast.id}/links`);
    expect(links.status).toBe(200);
    expect(links.body).toEqual([
      { url: 'https://shop.example.com/sale', clicks: 2, uniqueClicks: 2 },
      { url: 'https://docs.example.com/', clicks: 1, uniqueClicks: 1 },
    ]);
    expect((await org.api.get(`/v1/broadcasts/${broadcast.id}`)).body.counts.clicked).toBe(2);

    const other = await h.liveOrg();
    expect((await other.api.get(`/v1/broadcasts/${broadcast.id}/links`)).status).toBe(404);
    const testKey = (await org.api.post('/v1/api-keys', { name: 'test', mode: 'test' })).body;
    const asTest = await h.anonymous.get(`/v1/broadcasts/${broadcast.id}/links`, { authorization: `Bearer ${testKey.key}` });
    expect(asTest.status).toBe(404);
    expect(JSON.stringify(asTest.body)).not.toContain('shop.example.com');
  });
});
