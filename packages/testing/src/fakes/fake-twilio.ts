import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks';
import { startFakeServer, type FakeServer } from './fake-server.ts';
import { twilioError, twilioNumberRoutes, type FakeTwilioIncomingNumber } from './twilio/numbers.routes.ts';

export type FakeTwilioMessage = { sid: string; accountSid: string; from: string; to: string; body: string; mediaUrls: string[]; statusCallback: string | null };

export type FakeTwilio = FakeServer & {
  accountSid: string;
  authToken: string;
  /**
   * `respondAfterMs`: accepted messages are answered this much later (a crash can catch a call in flight).
   * `numbers`: the account's incoming phone numbers by sid.
   */
  state: { messages: FakeTwilioMessage[]; respondAfterMs: number; numbers: Map<string, FakeTwilioIncomingNumber> };
};

/**
 * A loopback Twilio Messages API that the real `twilio` SDK talks to (`TWILIO_BASE_URL`): POST
 * /2010-04-01/Accounts/{sid}/Messages.json with HTTP basic auth (this fake's account sid and auth token), answering
 * like Twilio (21211 for an invalid `To`, and for +15005550001 as Twilio's test credentials do), recording what it
 * accepted; and the number search and incoming phone numbers API (`twilio/numbers.routes.ts`).
 * @example const fake = await startFakeTwilio(); createTwilioProvider({ accountSid: fake.accountSid, authToken: fake.authToken, baseUrl: fake.url, ... });
 */
export async function startFakeTwilio(): Promise<FakeTwilio> {
  const accountSid = `AC${randomBytes(16).toString('hex')}`;
  const authToken = randomBytes(16).toString('hex');
  const state = { messages: [] as FakeTwilioMessage[], respondAfterMs: 0, numbers: new Map<string, FakeTwilioIncomingNumber>() };
  const expected = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
  const routes = new Hono()
    .route(
      '/',
      twilioNumberRoutes(accountSid, (c) => c.req.header('authorization') === expected, state.numbers),
    )
    .post('/2010-04-01/Accounts/:sid/Messages.json', async (c) => {
      if (c.req.header('authorization') !== expected || c.req.param('sid') !== accountSid) return twilioError(401, 20003, 'Authenticate');
      const form = new URLSearchParams(await c.req.text());
      const to = form.get('To') ?? '';
      // +15005550001 is invalid as with Twilio's test credentials
      if (!/^\+[1-9]\d{6,14}$/.test(to) || to === '+15005550001') return twilioError(400, 21211, `The 'To' number ${to} is not a valid phone number.`);
      const mediaUrls = form.getAll('MediaUrl');
      // Twilio takes an MMS without a body, never a message with neither
      if (!form.get('Body') && mediaUrls.length === 0) return twilioError(400, 21602, 'Message body is required.');
      const message: FakeTwilioMessage = {
        sid: `SM${randomBytes(16).toString('hex')}`,
        accountSid,
        from: form.get('From') ?? '',
        to,
        body: form.get('Body') ?? '',
        mediaUrls,
        statusCallback: form.get('StatusCallback'),
      };
      state.messages.push(message);
      if (state.respondAfterMs > 0) await new Promise((resolve) => setTimeout(resolve, state.respondAfterMs));
      const now = new Date().toUTCString();
      return c.json(
        {
          sid: message.sid,
          account_sid: accountSid,
          from: message.from,
          to: message.to,
          body: message.body,
          status: 'queued',
          num_segments: '1',
          num_media: String(mediaUrls.length),
          direction: 'outbound-api',
          api_version: '2010-04-01',
          date_created: now,
          date_updated: now,
          uri: `/2010-04-01/Accounts/${accountSid}/Messages/${message.sid}.json`,
        },
        201,
      );
    });
  const server = await startFakeServer(routes);
  return Object.assign(server, { accountSid, authToken, state });
}

/**
 * A Twilio callback (status or incoming message) as Twilio posts it: form-encoded, signed with X-Twilio-Signature
 * over `url` and the parameters (the SDK's own signing function).
 * @example const { body, headers } = signTwilioCallback(authToken, url, { MessageSid: sid, MessageStatus: 'delivered' });
 */
export function signTwilioCallback(authToken: string, url: string, params: Record<string, string>) {
  const signature = getExpectedTwilioSignature(authToken, url, params);
  return { body: new URLSearchParams(params).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature } };
}
