import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { createFakeRateLimit, type FakeRateLimit } from '../fake-rate-limit.ts';

export type FakeTelnyxMessage = { id: string; from: string; to: string; text: string; mediaUrls?: string[] };
export type FakeTelnyxMessageState = {
  messages: FakeTelnyxMessage[];
  /** The messaging profiles this account has; a number order naming another one is refused. */
  messagingProfileIds: Set<string>;
  /** The messaging profile of each number ordered at this fake (null: none); such a number sends only with one. */
  profileOfNumber: Map<string, string | null>;
  /** Accepted messages are answered this much later (a slow provider: a crash can catch a call in flight). */
  respondAfterMs: number;
  /** Numbers that texted STOP: Telnyx refuses sends to them with error 40300, as the real one does. */
  stoppedNumbers: Set<string>;
  /** Whether the messaging profile acts on STOP and START itself (Telnyx's default); off, it leaves them to us. */
  handlesKeywords: boolean;
  /** Messages per second each `from` may send (a 10DLC long code: 1); beyond, 429 as Telnyx answers. 0: no limit. */
  perSenderLimit: FakeRateLimit;
  /** Sends answered 429 for the limit. */
  rateLimited: number;
};

export function createFakeTelnyxMessageState(): FakeTelnyxMessageState {
  return {
    messages: [],
    messagingProfileIds: new Set(['mp_fake_default']),
    profileOfNumber: new Map(),
    respondAfterMs: 0,
    stoppedNumbers: new Set(),
    handlesKeywords: true,
    perSenderLimit: createFakeRateLimit(),
    rateLimited: 0,
  };
}

const invalid = (detail: string, pointer: string) => ({ errors: [{ code: '10005', title: 'Invalid parameter', detail, source: { pointer } }] });

/** POST /v2/messages as Telnyx answers it: 200 `{ data: { id, ... } }`, 422 with `errors` for a bad request. */
export function telnyxMessageRoutes(state: FakeTelnyxMessageState = createFakeTelnyxMessageState()) {
  return new Hono().post('/v2/messages', async (c) => {
    const body = (await c.req.json().catch(() => null)) as Record<string, unknown> | null;
    if (!body?.to || typeof body.to !== 'string') return c.json(invalid('The to field is required', '/to'), 422);
    if (!body.text && !body.media_urls) return c.json(invalid('text or media_urls is required', '/text'), 422);
    // Telnyx refuses to send from a number that is on no messaging profile
    if (state.profileOfNumber.has(String(body.from)) && !state.profileOfNumber.get(String(body.from))) {
      return c.json(
        { errors: [{ code: '40013', title: 'Invalid source number', detail: 'The source number is not associated with a messaging profile', source: { pointer: '/from' } }] },
        422,
      );
    }
    if (!state.perSenderLimit.take(String(body.from)).isAllowed) {
      state.rateLimited += 1;
      return c.json({ errors: [{ code: '10011', title: 'Too many requests', detail: 'Messaging rate limit exceeded for this sending number.' }] }, 429, { 'retry-after': '1' });
    }
    if (state.stoppedNumbers.has(body.to)) {
      return c.json({ errors: [{ code: '40300', title: 'Blocked due to STOP message', detail: 'The recipient has opted out of messages from this number.' }] }, 400);
    }
    if (body.media_urls !== undefined && (!Array.isArray(body.media_urls) || body.media_urls.some((u) => typeof u !== 'string' || !u.startsWith('https://')))) {
      return c.json(invalid('media_urls must be a list of https URLs', '/media_urls'), 422);
    }
    const mediaUrls = body.media_urls as string[] | undefined;
    const message: FakeTelnyxMessage = { id: randomUUID(), from: String(body.from ?? ''), to: body.to, text: String(body.text ?? ''), ...(mediaUrls ? { mediaUrls } : {}) };
    state.messages.push(message);
    if (state.respondAfterMs > 0) await new Promise((resolve) => setTimeout(resolve, state.respondAfterMs));
    return c.json(
      {
        data: {
          record_type: 'message',
          direction: 'outbound',
          id: message.id,
          type: mediaUrls?.length ? 'MMS' : 'SMS',
          media: (mediaUrls ?? []).map((url) => ({ url })),
          from: { phone_number: message.from },
          to: [{ phone_number: message.to, status: 'queued' }],
          text: message.text,
          parts: 1,
          encoding: 'GSM-7',
          errors: [],
        },
      },
      200,
    );
  });
}
