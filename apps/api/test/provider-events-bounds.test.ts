import { serveHttp, type RunningServer } from '@tidings/testing';
import { setupApi } from './setup.ts';

// The unauthenticated provider-event routes do no work they need not: without SES nothing is fetched for an SNS post,
// and each client address is limited before anything is read.
let certificates: RunningServer;
let certificateRequests = 0;
const t = setupApi({ PROVIDER_EVENT_RATE_LIMIT: '3', SNS_URL_PATTERN: '^http://127\\.0\\.0\\.1:' });
beforeAll(async () => {
  certificates = await serveHttp(() => {
    certificateRequests += 1;
    return new Response('not a certificate', { status: 200 });
  });
});
afterAll(async () => {
  await certificates.close();
  await t.close();
});

const snsPost = (i: number) =>
  JSON.stringify({
    Type: 'Notification',
    MessageId: `m-${i}`,
    TopicArn: 'arn:aws:sns:us-east-1:123456789012:x',
    Message: '{}',
    Timestamp: new Date().toISOString(),
    SignatureVersion: '2',
    Signature: 'AAAA',
    SigningCertURL: `${certificates.url}/cert-${i}.pem`,
  });

describe('POST /v1/provider-events/ses without SES configured', () => {
  it('is 404 and fetches no certificate, whatever SigningCertURL says', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await t.anonymous.post('/v1/provider-events/ses', snsPost(i), { 'content-type': 'text/plain' });
      expect(res).toMatchObject({ status: 404, body: { code: 'NOT_FOUND', message: 'SES is not configured on this server, so it takes no SES callbacks.' } });
    }
    expect(certificateRequests).toBe(0);
  });
});

describe('provider-event routes are limited per client address', () => {
  it('answer 429 past PROVIDER_EVENT_RATE_LIMIT a minute, before reading anything, on every provider route alike', async () => {
    const api = await serveHttp(t.app.fetch);
    try {
      const post = (provider: string) => fetch(`${api.url}/v1/provider-events/${provider}`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      for (const provider of ['resend', 'telnyx', 'twilio']) expect((await post(provider)).status).toBe(401);
      const refused = await post('resend');
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await refused.json()).toEqual({ code: 'TOO_MANY_REQUESTS', message: expect.stringMatching(/^Too many provider callbacks from this address; retry in \d+ s\.$/) });
      expect((await post('telnyx')).status).toBe(429);
    } finally {
      await api.close();
    }
  });
});
