import { newId, trackingToken } from '@tidings/core';
import { serveHttp, signResendCallback, startFakeResend, type FakeResend, type RunningServer } from '@tidings/testing';
import { setupApi } from './setup.ts';

// The routes that answer without an API key: tracking links limited per address, the public pages never framed, and
// provider callbacks that refuse a signed body that is no event and fetch nothing for mail nobody here receives.
const WEBHOOK_SECRET = `whsec_${Buffer.from('public-routes-hardening-secret').toString('base64')}`;
let resend: FakeResend;
let server: RunningServer;
let t: ReturnType<typeof setupApi>;
beforeAll(async () => {
  resend = await startFakeResend();
  t = setupApi({ TRACKING_RATE_LIMIT: '3', RESEND_API_KEY: 're_test', RESEND_BASE_URL: resend.url, RESEND_WEBHOOK_SECRET: WEBHOOK_SECRET });
  server = await serveHttp(t.app.fetch);
});
afterAll(async () => {
  await server.close();
  await resend.close();
  await t.close();
});

const postResend = (payload: unknown) => {
  const signed = signResendCallback(WEBHOOK_SECRET, payload);
  return fetch(`${server.url}/v1/provider-events/resend`, { method: 'POST', headers: signed.headers, body: signed.body });
};

describe('tracking links', () => {
  it('answer 429 past TRACKING_RATE_LIMIT a minute from one address, opens and clicks counted apart', async () => {
    const secret = t.deps.config.broadcasts.unsubscribeSecret;
    const open = trackingToken(secret, { kind: 'open', messageId: 'msg_nothing' });
    const click = trackingToken(secret, { kind: 'click', messageId: 'msg_nothing', url: 'https://example.com/' });
    const opens = [];
    for (let i = 0; i < 4; i++) opens.push((await fetch(`${server.url}/o/${open}`)).status);
    expect(opens).toEqual([200, 200, 200, 429]);
    const forged = await fetch(`${server.url}/o/nothing`);
    expect(forged.status).toBe(429); // refused before the token is even read
    expect(Number(forged.headers.get('retry-after'))).toBeGreaterThan(0);
    const clicks = [];
    for (let i = 0; i < 4; i++) clicks.push((await fetch(`${server.url}/c/${click}`, { redirect: 'manual' })).status);
    expect(clicks).toEqual([302, 302, 302, 429]);
  });
});

describe('the public pages', () => {
  it.each(['/p/', '/u/', '/c/'])('%s cannot be framed and loads nothing from elsewhere', async (prefix) => {
    const response = await t.app.request(`${prefix}not-a-token`);
    expect(response.status).toBe(404);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  });
});

describe('Resend callbacks', () => {
  it('refuse a validly signed body that is no event with 400, whatever JSON it is', async () => {
    for (const payload of [null, 42, 'text', [{ type: 'email.delivered' }]]) {
      const response = await postResend(payload);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ code: 'BAD_REQUEST', message: "The Resend callback's body is not an event object" });
    }
  });

  it('drop email.received for a domain no organization verified before fetching anything from Resend', async () => {
    const nobodys = { email_id: 'rcv_nobody', from: 'someone@example.net', to: ['hello@nobody-verified.test'], subject: 'Hi' };
    const before = resend.requests.length;
    const dropped = await postResend({ type: 'email.received', data: nobodys });
    expect(dropped.status).toBe(200);
    expect(await dropped.json()).toEqual({ received: true, applied: false });
    expect(resend.requests.slice(before)).toEqual([]);

    // a verified domain's mail is fetched and recorded as before
    const { orgId } = await t.org();
    const name = `${newId('dom').toLowerCase()}.test`;
    await t.deps.db.emailDomain.create({ data: { id: newId('dom'), orgId, name, status: 'verified', provider: 'resend', records: [] } });
    resend.sendCallbacksTo(`${server.url}/v1/provider-events/resend`, WEBHOOK_SECRET);
    const { id, status } = await resend.receiveEmail({ from: 'reader@example.net', to: `hello@${name}`, subject: 'Question', text: 'Hello?' });
    expect(status).toBe(200);
    expect(resend.requests.slice(before).filter((r) => r.method === 'GET' && r.path.includes(id))).toHaveLength(1);
    expect(await t.deps.db.message.findFirst({ where: { orgId, direction: 'inbound' }, select: { subject: true, text: true } })).toEqual({ subject: 'Question', text: 'Hello?' });
  });
});
