import { randomUUID, type KeyObject } from 'node:crypto';
import { Hono } from 'hono';
import { postCallback, telnyxCallbackTarget, type CallbackTarget } from './callback-poster.ts';
import { startFakeServer, type FakeServer } from './fake-server.ts';
import { createFakeTelnyxMessageState, telnyxMessageRoutes, type FakeTelnyxMessageState } from './telnyx/messages.routes.ts';
import { telnyxNumberRoutes } from './telnyx/numbers.routes.ts';

const STOP_WORDS = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT']);
const START_WORDS = new Set(['START', 'UNSTOP', 'YES']);

export type FakeTelnyx = FakeServer & {
  state: FakeTelnyxMessageState;
  /** Posts callbacks to `url`, Ed25519-signed with `privateKey` (the account's key pair). */
  sendCallbacksTo(url: string, privateKey: KeyObject): void;
  /**
   * Someone texts one of our numbers: posts a signed `message.received` as Telnyx does, and like Telnyx notes a STOP
   * (later sends to that number are refused with 40300) or a START. Answers the callback's HTTP status.
   */
  receiveSms(sms: { from: string; to: string; text: string }): Promise<number>;
  /** Posts a signed `message.finalized` for a message it accepted (`delivered`, `delivery_failed`, `sending_failed`). */
  finalize(messageId: string, status: string, errors?: { code: string; title: string }[]): Promise<number>;
  /** Posts any payload, signed; for tests of what a malformed or unexpected callback does. */
  postCallback(payload: unknown): Promise<number>;
};

/**
 * A loopback Telnyx that the real `telnyx` SDK talks to (`TELNYX_BASE_URL` / `baseURL`): messaging and the
 * number search, order and management endpoints, recording requests and failing on demand; and the callbacks a
 * Telnyx messaging profile posts (inbound SMS, final statuses), signed as the real ones are.
 * @example const telnyx = await startFakeTelnyx(); ... new Telnyx({ apiKey: 'KEY', baseURL: `${telnyx.url}/v2` });
 */
export async function startFakeTelnyx(): Promise<FakeTelnyx> {
  const state = createFakeTelnyxMessageState();
  const server = await startFakeServer(new Hono().route('/', telnyxMessageRoutes(state)).route('/', telnyxNumberRoutes(state)));
  let target: CallbackTarget | null = null;
  const event = (eventType: string, payload: Record<string, unknown>) => ({
    data: { event_type: eventType, id: randomUUID(), occurred_at: new Date().toISOString(), payload, record_type: 'event' },
    meta: { attempt: 1, delivered_to: target?.url },
  });
  return Object.assign(server, {
    state,
    sendCallbacksTo(url: string, privateKey: KeyObject) {
      target = telnyxCallbackTarget(url, privateKey);
    },
    async receiveSms(sms: { from: string; to: string; text: string }) {
      const word = sms.text.trim().toUpperCase();
      if (state.handlesKeywords && STOP_WORDS.has(word)) state.stoppedNumbers.add(sms.from);
      if (state.handlesKeywords && START_WORDS.has(word)) state.stoppedNumbers.delete(sms.from);
      return postCallback(
        target,
        event('message.received', {
          id: randomUUID(),
          record_type: 'message',
          direction: 'inbound',
          type: 'SMS',
          from: { phone_number: sms.from, carrier: 'T-Mobile USA', line_type: 'Wireless' },
          to: [{ phone_number: sms.to, status: 'webhook_delivered' }],
          text: sms.text,
          received_at: new Date().toISOString(),
          errors: [],
        }),
      );
    },
    async finalize(messageId: string, status: string, errors: { code: string; title: string }[] = []) {
      const message = state.messages.find((m) => m.id === messageId);
      return postCallback(
        target,
        event('message.finalized', {
          id: messageId,
          record_type: 'message',
          direction: 'outbound',
          from: { phone_number: message?.from },
          to: [{ phone_number: message?.to, status }],
          errors,
        }),
      );
    },
    postCallback: (payload: unknown) => postCallback(target, payload),
  });
}
