import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { postCallback, resendCallbackTarget, type CallbackTarget } from './callback-poster.ts';
import { startFakeServer, type FakeServer } from './fake-server.ts';
import { resendDomainRoutes } from './resend/domains.routes.ts';
import { createFakeResendEmailState, resendEmailRoutes, type FakeResendEmailState } from './resend/emails.routes.ts';
import { resendReceivingRoutes, type FakeReceivedEmail } from './resend/receiving.routes.ts';

/** The email events a Resend webhook endpoint receives about a sent email. */
export type ResendEmailEvent = 'email.delivered' | 'email.bounced' | 'email.complained' | 'email.opened' | 'email.clicked' | 'email.delivery_delayed' | 'email.failed';

export type FakeResend = FakeServer & {
  state: FakeResendEmailState;
  /** Received emails (`receiveEmail`), which GET /emails/receiving/{id} serves. */
  received: Map<string, FakeReceivedEmail>;
  /** Posts callbacks to `url`, Svix-signed with `secret` (the webhook endpoint's signing secret). */
  sendCallbacksTo(url: string, secret: string): void;
  /**
   * Posts a signed event about an email it accepted, with the tags it was sent with (`extra` merges into `data`,
   * e.g. `{ click: { link } }`). Answers the callback's HTTP status.
   */
  emailEvent(type: ResendEmailEvent, emailId: string, extra?: Record<string, unknown>): Promise<number>;
  /** Someone emails one of our addresses: stores it and posts a signed `email.received` (which, as Resend's, has no content). */
  receiveEmail(email: { from: string; to: string; subject: string; text?: string; html?: string }): Promise<{ id: string; status: number }>;
};

/**
 * A loopback Resend that the real `resend` SDK talks to (`RESEND_BASE_URL` / `baseUrl`): the endpoints the SDK calls
 * for sending, receiving and domains, recording requests and failing on demand; and the webhook callbacks of a
 * Resend account (delivery, engagement, inbound), signed as the real ones are. `state.emails` holds what was accepted.
 * `ratePerSecond`: the account's request limit, answered with 429 and Resend's `ratelimit-*` and `retry-after` headers.
 * @example const resend = await startFakeResend(); ... new Resend('re_test', { baseUrl: resend.url });
 */
export async function startFakeResend(options: { ratePerSecond?: number } = {}): Promise<FakeResend> {
  const state = createFakeResendEmailState();
  state.limit.ratePerSecond = options.ratePerSecond ?? 0;
  const received = new Map<string, FakeReceivedEmail>();
  const server = await startFakeServer(new Hono().route('/', resendEmailRoutes(state)).route('/', resendReceivingRoutes(received)).route('/', resendDomainRoutes()));
  let target: CallbackTarget | null = null;
  return Object.assign(server, {
    state,
    received,
    sendCallbacksTo(url: string, secret: string) {
      target = resendCallbackTarget(url, secret);
    },
    emailEvent(type: ResendEmailEvent, emailId: string, extra: Record<string, unknown> = {}) {
      const email = state.emails.find((e) => e.id === emailId);
      const tags = Object.fromEntries((email?.tags ?? []).map((t) => [t.name, t.value]));
      const createdAt = new Date().toISOString();
      return postCallback(target, {
        type,
        created_at: createdAt,
        data: { created_at: createdAt, email_id: emailId, from: email?.from, to: email?.to, subject: email?.subject, tags, ...extra },
      });
    },
    async receiveEmail(email: { from: string; to: string; subject: string; text?: string; html?: string }) {
      const id = randomUUID();
      const createdAt = new Date().toISOString();
      received.set(id, { id, from: email.from, to: [email.to], subject: email.subject, text: email.text ?? null, html: email.html ?? null, createdAt });
      const status = await postCallback(target, {
        type: 'email.received',
        created_at: createdAt,
        data: {
          email_id: id,
          created_at: createdAt,
          from: email.from,
          to: [email.to],
          bcc: [],
          cc: [],
          received_for: [email.to],
          message_id: `<${id}@fake-resend.test>`,
          subject: email.subject,
          attachments: [],
        },
      });
      return { id, status };
    },
  });
}
