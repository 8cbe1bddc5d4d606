import { createApp } from '@tidings/api';
import { apiClient } from '@tidings/testing';
import { refusal, setupSmtp } from './setup.ts';

let t: Awaited<ReturnType<typeof setupSmtp>>;
beforeAll(async () => {
  t = await setupSmtp({ SEND_BODY_LIMIT_BYTES: String(64 * 1024), RATE_LIMIT_PER_MINUTE: '5', AUTH_FAILURE_LIMIT: '3' });
});
afterAll(() => t.close());

const mail = (extra: Record<string, unknown> = {}) => ({ from: 'hi@acme.test', to: 'ada@example.com', subject: 'Refused?', text: 'x', ...extra });

describe('SMTP submission refusals name the reason with the contract codes', () => {
  it('refuses a mail over SEND_BODY_LIMIT_BYTES with 552 5.3.4, making nothing', async () => {
    const { orgId, key } = await t.org({ mode: 'test' });
    const { code, response } = await refusal(t.client(key).sendMail(mail({ text: 'x'.repeat(100 * 1024) })));
    expect(code).toBe(552);
    expect(response).toMatch(/^552 5\.3\.4 Message too big/);
    expect(await t.deps.db.message.count({ where: { orgId } })).toBe(0);
  });

  it('refuses the 51st recipient with 452 4.5.3 at RCPT (the client sends it in another mail), and a mail whose headers name more than 50 at DATA', async () => {
    const { orgId, key } = await t.org({ mode: 'test' });
    const bcc = Array.from({ length: 50 }, (_, i) => `b${i}@example.com`);
    // as RFC 5321 has it: the recipients over the limit are deferred, the mail goes to the others
    const info = await t.client(key).sendMail(mail({ subject: 'fifty', bcc }));
    expect(info.rejected).toEqual(['b49@example.com']);
    expect((info as unknown as { rejectedErrors: { response: string }[] }).rejectedErrors[0]!.response).toBe('452 4.5.3 Too many recipients: at most 50 per message');
    const sent = await t.deps.db.message.findFirstOrThrow({ where: { orgId, subject: 'fifty' } });
    expect(sent.bcc).toEqual(bcc.slice(0, 49));

    // To and Cc are sent to whatever the envelope says, so more than 50 there is refused whole
    const { code, response } = await refusal(t.client(key).sendMail(mail({ subject: 'too many', cc: bcc })));
    expect(code).toBe(452);
    expect(response).toBe('452 4.5.3 Too many recipients: To, Cc and Bcc together may name at most 50');
    expect(await t.deps.db.message.count({ where: { orgId, subject: 'too many' } })).toBe(0);
  });

  it('refuses a From that a live key may not send from with 550 5.7.1', async () => {
    const { orgId, key } = await t.org({ mode: 'live' });
    const { code, response } = await refusal(t.client(key).sendMail(mail({ from: 'someone@unverified.test' })));
    expect(code).toBe(550);
    expect(response).toBe(
      '550 5.7.1 from: unverified.test is not a verified email domain of this organization; use an sk_test_ key (the sandbox sends from any address), or verify a domain',
    );
    expect(await t.deps.db.message.count({ where: { orgId } })).toBe(0);
  });

  it('shares the key rate limit: past it 451 4.7.0, and the limit counts HTTP and SMTP alike', async () => {
    const { orgId, key } = await t.org({ mode: 'test' });
    const client = t.client(key);
    const api = apiClient(createApp(t.deps), key);
    for (let i = 0; i < 3; i++) expect((await api.post('/v1/messages', { channelType: 'email', to: 'ada@example.com', subject: `http #${i}`, text: 'x' })).status).toBe(202);
    for (let i = 0; i < 2; i++) await client.sendMail(mail({ subject: `within #${i}` }));
    const { code, response } = await refusal(client.sendMail(mail({ subject: 'over' })));
    expect(code).toBe(451);
    expect(response).toMatch(/^451 4\.7\.0 Rate limit of 5 requests per minute exceeded; retry in \d+ s$/);
    expect(await t.deps.db.message.count({ where: { orgId } })).toBe(5);
  });

  // last: past the limit this address is refused for a minute, good keys included
  it('refuses a wrong key with 535 5.7.8, counted per address like the API: past AUTH_FAILURE_LIMIT 454 4.7.0', async () => {
    const { key } = await t.org({ mode: 'test' });
    const wrong = `${key.slice(0, -4)}abcd`;
    for (let i = 0; i < 3; i++) {
      const { code, response } = await refusal(t.client(wrong).sendMail(mail()));
      expect(code).toBe(535);
      expect(response).toMatch(/^535 5\.7\.8 Invalid API key/);
    }
    const { code, response } = await refusal(t.client(wrong).sendMail(mail()));
    expect(code).toBe(454);
    expect(response).toMatch(/^454 4\.7\.0 Too many failed authentications from this address; retry in \d+ s$/);
    // the count is the API's: the same Redis key per address
    expect(Number(await t.deps.redis.get(`${t.deps.config.redisPrefix}:auth-failures:127.0.0.1`))).toBe(4);
  });
});
