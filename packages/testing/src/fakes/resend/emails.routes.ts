import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { createFakeRateLimit, type FakeLimitAnswer, type FakeRateLimit } from '../fake-rate-limit.ts';

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
  /** The account's request limit (Resend: N per second per team); `limit.ratePerSecond = 0`: none. */
  limit: FakeRateLimit;
  /** Requests answered 429 for the limit, and requests that got past it, with `/emails/batch` calls among them. */
  counts: { rateLimited: number; accepted: number; batches: number };
};

export function createFakeResendEmailState(): FakeResendEmailState {
  return {
    emails: [],
    hangAfterAccept: 0,
    hangAfterAcceptRate: 0,
    respondAfterMs: 0,
    limit: createFakeRateLimit(),
    counts: { rateLimited: 0, accepted: 0, batches: 0 },
  };
}

const validationError = (message: string) => ({ statusCode: 422, name: 'validation_error', message });

/** What is wrong with one email of a request (`/emails` or an item of `/emails/batch`), as Resend says it; null when nothing. */
function emailProblem(body: Record<string, unknown>): { statusCode: number; name: string; message: string } | null {
  for (const field of ['from', 'to', 'subject'] as const) {
    if (!body[field]) return { statusCode: 422, name: 'missing_required_field', message: `Missing \`${field}\` field.` };
  }
  if (!body.html && !body.text) return validationError('Missing `html` or `text` field.');
  if (body.headers !== undefined && (typeof body.headers !== 'object' || Object.values(body.headers as object).some((v) => typeof v !== 'string'))) {
    return validationError('`headers` must be an object of strings');
  }
  return null;
}

/** Resend's headers about its limit: `ratelimit-limit`, `ratelimit-remaining`, `ratelimit-reset` (seconds), and `retry-after` on a 429. */
function limitHeaders(answer: FakeLimitAnswer): Record<string, string> {
  if (answer.limit === 0) return {};
  const headers: Record<string, string> = {
    'ratelimit-limit': String(answer.limit),
    'ratelimit-remaining': String(answer.remaining),
    'ratelimit-reset': String(answer.resetSeconds),
  };
  if (!answer.isAllowed) headers['retry-after'] = String(answer.resetSeconds);
  return headers;
}

const rateLimitError = { statusCode: 429, name: 'rate_limit_exceeded', message: 'Too many requests. You can only make a limited number of requests per second.' };

/**
 * POST /emails as Resend answers it: 200 `{ id }`, 422 `validation_error` for a missing field, and an
 * `Idempotency-Key` seen before returns the first email's id without sending again. POST /emails/batch: up to 100
 * emails without attachments or `scheduled_at`; `x-batch-validation: permissive` sends the valid ones and lists the
 * others in `errors` by index, `strict` (the default) refuses the whole batch. Both keep to `ratePerSecond` with 429s.
 */
export function resendEmailRoutes(state: FakeResendEmailState = createFakeResendEmailState()) {
  const byKey = new Map<string, FakeResendEmail>();
  const batchesByKey = new Map<string, { payload: string; answer: { data: { id: string }[]; errors: { index: number; message: string }[] } }>();
  const store = (body: Record<string, unknown>, attachments: FakeResendAttachment[] | undefined, key: string | undefined): FakeResendEmail => {
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
    return email;
  };
  const routes = new Hono();
  routes.use('/emails*', async (c, next) => {
    if (c.req.method !== 'POST') return next();
    const limit = state.limit.take();
    for (const [name, value] of Object.entries(limitHeaders(limit))) c.header(name, value);
    if (!limit.isAllowed) {
      state.counts.rateLimited += 1;
      return c.json(rateLimitError, 429);
    }
    state.counts.accepted += 1;
    return next();
  });
  routes.post('/emails/batch', async (c) => {
    state.counts.batches += 1;
    const body = (await c.req.json().catch(() => null)) as Record<string, unknown>[] | null;
    if (!Array.isArray(body) || body.length === 0) return c.json(validationError('The body must be an array of 1 to 100 emails.'), 422);
    if (body.length > 100) return c.json(validationError('Too many emails in the batch: at most 100.'), 422);
    const key = c.req.header('idempotency-key');
    const earlier = key ? batchesByKey.get(key) : undefined;
    // as Resend: a key seen before answers from its record, for the same request only
    if (earlier && earlier.payload !== JSON.stringify(body)) {
      return c.json({ statusCode: 409, name: 'invalid_idempotent_request', message: 'Same idempotency key used with a different request payload.' }, 409);
    }
    if (earlier) return c.json(earlier.answer, 200);
    const isPermissive = c.req.header('x-batch-validation') === 'permissive';
    const problems = body.map((item, index) => {
      if (typeof item !== 'object' || item === null) return { index, message: 'Each email must be an object.' };
      if (item.attachments !== undefined) return { index, message: '`attachments` are not supported in batch sending.' };
      if (item.scheduled_at !== undefined) return { index, message: '`scheduled_at` is not supported in batch sending.' };
      // a recipient Resend will not send to (the fake's way to refuse one email of a batch)
      if ([item.to].flat().some((to) => String(to).startsWith('refused@'))) return { index, message: 'Invalid `to` field: the address is refused.' };
      const problem = emailProblem(item);
      return problem ? { index, message: problem.message } : null;
    });
    const errors = problems.filter((p) => p !== null);
    if (errors.length > 0 && !isPermissive) return c.json(validationError(errors[0]!.message), 422);
    const data = body.filter((_, index) => !problems[index]).map((item) => ({ id: store(item, undefined, key).id }));
    const answer = { data, errors };
    if (key) batchesByKey.set(key, { payload: JSON.stringify(body), answer });
    if (state.respondAfterMs > 0) await new Promise((resolve) => setTimeout(resolve, state.respondAfterMs));
    return c.json(isPermissive ? answer : { data }, 200);
  });
  routes.post('/emails', async (c) => {
    const body = (await c.req.json().catch(() => null)) as Record<string, unknown> | null;
    if (!body) return c.json(validationError('Invalid JSON'), 422);
    const problem = emailProblem(body);
    if (problem) return c.json(problem, 422);
    const attachments = parseAttachments(body.attachments);
    if (typeof attachments === 'string') return c.json({ statusCode: 422, name: 'invalid_attachment', message: attachments }, 422);
    const key = c.req.header('idempotency-key');
    const earlier = key ? byKey.get(key) : undefined;
    if (earlier) return c.json({ id: earlier.id }, 200);
    const email = store(body, attachments, key);
    if (key) byKey.set(key, email);
    if (state.hangAfterAccept > 0 || Math.random() < state.hangAfterAcceptRate) {
      state.hangAfterAccept = Math.max(0, state.hangAfterAccept - 1);
      await new Promise(() => {}); // accepted, but the answer never comes
    }
    if (state.respondAfterMs > 0) await new Promise((resolve) => setTimeout(resolve, state.respondAfterMs));
    return c.json({ id: email.id }, 200);
  });
  return routes;
}
