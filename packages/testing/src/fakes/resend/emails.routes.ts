import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';

export type FakeResendAttachment = { filename: string; content: Buffer; contentType?: string; contentId?: string };
export type FakeResendEmail = {
  id: string;
  from: string;
  to: string[];
  subject: string;
  html?: string;
  text?: string;
  cc?: string[];
  bcc?: string[];
  replyTo?: string[];
  headers?: Record<string, string>;
  /** Decoded, as Resend would attach them. */
  attachments?: FakeResendAttachment[];
  tags?: { name: string; value: string }[];
  idempotencyKey?: string;
};

const asList = (value: unknown) => (value === undefined ? undefined : Array.isArray(value) ? value.map(String) : [String(value)]);

/** Resend's checks of `attachments`: each needs a filename and base64 `content` (or a `path`), at most 40 MB in all. */
function parseAttachments(value: unknown): FakeResendAttachment[] | string | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) return '`attachments` must be an array';
  const parsed: FakeResendAttachment[] = [];
  for (const a of value as Record<string, unknown>[]) {
    if (typeof a.filename !== 'string' || !a.filename) return 'Attachment `filename` is required';
    if (typeof a.content !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(a.content)) return 'Attachment `content` must be a base64 string';
    parsed.push({
      filename: a.filename,
      content: Buffer.from(a.content, 'base64'),
      ...(typeof a.content_type === 'string' ? { contentType: a.content_type } : {}),
      ...(typeof a.content_id === 'string' ? { contentId: a.content_id } : {}),
    });
  }
  if (parsed.reduce((sum, a) => sum + a.content.length, 0) > 40 * 1024 * 1024) return 'Attachments are larger than 40MB';
  return parsed;
}

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
    const attachments = parseAttachments(body.attachments);
    if (typeof attachments === 'string') return c.json({ statusCode: 422, name: 'invalid_attachment', message: attachments }, 422);
    if (body.headers !== undefined && (typeof body.headers !== 'object' || Object.values(body.headers as object).some((v) => typeof v !== 'string'))) {
      return c.json(validationError('`headers` must be an object of strings'), 422);
    }
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
      cc: asList(body.cc),
      bcc: asList(body.bcc),
      replyTo: asList(body.reply_to),
      headers: body.headers as Record<string, string> | undefined,
      attachments,
      tags: body.tags as FakeResendEmail['tags'],
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
