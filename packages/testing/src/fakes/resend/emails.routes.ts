import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';

export type FakeResendEmail = { id: string; from: string; to: string[]; subject: string; html?: string; text?: string; tags?: { name: string; value: string }[]; headers?: Record<string, string>; idempotencyKey?: string };

/** What the fake Resend accepted, and the switches tests flip. */
export type FakeResendEmailState = {
  /** Every email accepted, once per distinct send (an Idempotency-Key repeat does not add one). */
  emails: FakeResendEmail[];
  /** The next N accepted sends are stored and then never answered: the caller sees a timeout or dies waiting. */
  hangAfterAccept: number;
  /** Each accepted send is left unanswered with this probability (fault-injection runs: timeouts after acceptance). */
  hangAfterAcceptRate: number;
  /** Accepted sends are answered this much later (a slow provider). */
  respondAfterMs: number;
};

export function createFakeResendEmailState(): FakeResendEmailState {
  return { emails: [], hangAfterAccept: 0, hangAfterAcceptRate: 0, respondAfterMs: 0 };
}

const validationError = (message: string) => ({ statusCode: 422, name: 'validation_error', message });

/**
 * POST /emails as Resend answers it: 200 `{ id }`, 422 `validation_error` for a missing field, and an
 * `Idempotency-Key` seen before returns the first email's id without sending again.
 */
export function resendEmailRoutes(state: FakeResendEmailState = createFakeResendEmailState()) {
  const byKey = new Map<string, FakeResendEmail>();
  return new Hono().post('/emails', async (c) => {
    const body = (await c.req.json().catch(() => null)) as Record<string, unknown> | null;
    if (!body) return c.json(validationError('Invalid JSON'), 422);
    for (const field of ['from', 'to', 'subject'] as const) {
      if (!body[field]) return c.json({ statusCode: 422, name: 'missing_required_field', message: `Missing \`${field}\` field.` }, 422);
    }
    if (!body.html && !body.text) return c.json(validationError('Missing `html` or `text` field.'), 422);
    const key = c.req.header('idempotency-key');
    const earlier = key ? byKey.get(key) : undefined;
    if (earlier) return c.json({ id: earlier.id }, 200);
    const email: FakeResendEmail = {
      id: randomUUID(),
      from: String(body.from),
      to: Array.isArray(body.to) ? body.to.map(String) : [String(body.to)],
      subject: String(body.subject),
      html: body.html as string | undefined,
      text: body.text as string | undefined,
      tags: body.tags as FakeResendEmail['tags'],
      headers: body.headers as FakeResendEmail['headers'],
      idempotencyKey: key,
    };
    state.emails.push(email);
    if (key) byKey.set(key, email);
    if (state.hangAfterAccept > 0 || Math.random() < state.hangAfterAcceptRate) {
      state.hangAfterAccept = Math.max(0, state.hangAfterAccept - 1);
      await new Promise(() => {}); // accepted, but the answer never comes
    }
    if (state.respondAfterMs > 0) await new Promise((resolve) => setTimeout(resolve, state.respondAfterMs));
    return c.json({ id: email.id }, 200);
  });
}
