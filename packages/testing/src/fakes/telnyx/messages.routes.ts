import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';

export type FakeTelnyxMessage = { id: string; from: string; to: string; text: string };
export type FakeTelnyxMessageState = {
  messages: FakeTelnyxMessage[];
  /** Numbers that texted STOP: Telnyx refuses sends to them with error 40300, as the real one does. */
  stoppedNumbers: Set<string>;
};

export function createFakeTelnyxMessageState(): FakeTelnyxMessageState {
  return { messages: [], stoppedNumbers: new Set() };
}

const invalid = (detail: string, pointer: string) => ({ errors: [{ code: '10005', title: 'Invalid parameter', detail, source: { pointer } }] });

/** POST /v2/messages as Telnyx answers it: 200 `{ data: { id, ... } }`, 422 with `errors` for a bad request. */
export function telnyxMessageRoutes(state: FakeTelnyxMessageState = createFakeTelnyxMessageState()) {
  return new Hono().post('/v2/messages', async (c) => {
    const body = (await c.req.json().catch(() => null)) as Record<string, unknown> | null;
    if (!body?.to || typeof body.to !== 'string') return c.json(invalid('The to field is required', '/to'), 422);
    if (!body.text && !body.media_urls) return c.json(invalid('text or media_urls is required', '/text'), 422);
    if (state.stoppedNumbers.has(body.to)) {
      return c.json({ errors: [{ code: '40300', title: 'Blocked due to STOP message', detail: 'The recipient has opted out of messages from this number.' }] }, 400);
    }
    const message: FakeTelnyxMessage = { id: randomUUID(), from: String(body.from ?? ''), to: body.to, text: String(body.text ?? '') };
    state.messages.push(message);
    return c.json(
      {
        data: {
          record_type: 'message',
          direction: 'outbound',
          id: message.id,
          type: 'SMS',
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
