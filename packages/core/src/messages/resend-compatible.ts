import {
  ResendSendEmailBody,
  SendMessageBody,
  type MessageWithEvents,
  type ResendBatchResponse,
  type ResendEmail,
  type ResendEmailId,
  type ResendEmailRef,
  type ResendLastEvent,
} from '@tidings/contracts';
import type { KeyMode } from '@tidings/providers';
import type { Deps } from '../deps.ts';
import type { OrgContext, RequestContext } from '../request-context.ts';
import { AppError } from '../errors.ts';
import { cancelMessage } from './cancel-message.ts';
import { getMessage } from './query-messages.ts';
import { rescheduleMessage } from './reschedule-message.ts';
import { describeIssues, sendMessages, type BatchResult } from './send-messages.ts';

// Resend's email endpoints, mapped onto message.send, sendBatch, get and cancel: the same send path, every rule of
// message.send's body included. Only the shapes differ.

/** Tidings field names in an error message, as a Resend caller wrote them. */
const RESEND_FIELD_NAMES: [RegExp, string][] = [
  [/(?<![\w.])replyTo\b/g, 'reply_to'],
  [/(?<![\w.])scheduledAt\b/g, 'scheduled_at'],
  [/(?<![\w.])templateId\b/g, 'template.id'],
  [/(?<![\w.])variables\b/g, 'template.variables'],
  [/(?<=\.)contentType\b/g, 'content_type'],
  [/(?<=\.)contentId\b/g, 'content_id'],
];

function inResendTerms(message: string): string {
  return RESEND_FIELD_NAMES.reduce((text, [pattern, name]) => text.replace(pattern, name), message);
}

const asList = (value: string | string[] | undefined) => (value === undefined ? undefined : Array.isArray(value) ? value : [value]);

/** A `path` attachment without a filename is named after the last segment of its URL, as Resend does. */
function filenameOf(path: string | undefined): string | undefined {
  if (!path || !URL.canParse(path)) return undefined;
  const last = new URL(path).pathname.split('/').pop();
  return last ? decodeURIComponent(last) : undefined;
}

/**
 * One email in Resend's shape as message.send's body, or a 400 naming the field as the caller wrote it. Tags become
 * the message tags `name:value`.
 * @example fromResendEmail({ from: 'a@example.com', to: ['b@example.com'], subject: 'Hi', text: 'Hello' }).channelType // 'email'
 */
export function fromResendEmail(raw: unknown): SendMessageBody {
  const parsed = ResendSendEmailBody.safeParse(raw);
  if (!parsed.success) throw new AppError('BAD_REQUEST', describeIssues(parsed.error));
  const email = parsed.data;
  const body = SendMessageBody.safeParse({
    channelType: 'email',
    to: email.to,
    from: email.from,
    cc: asList(email.cc),
    bcc: asList(email.bcc),
    replyTo: email.reply_to,
    subject: email.subject,
    html: email.html,
    text: email.text,
    headers: email.headers,
    attachments: email.attachments?.map((a) => ({
      filename: a.filename ?? filenameOf(a.path),
      content: a.content,
      path: a.path,
      contentType: a.content_type,
      contentId: a.content_id,
    })),
    tags: email.tags?.map((tag) => `${tag.name}:${tag.value}`),
    scheduledAt: email.scheduled_at,
    templateId: email.template?.id,
    variables: email.template?.variables,
  });
  if (!body.success) throw new AppError('BAD_REQUEST', inResendTerms(describeIssues(body.error)));
  return body.data;
}

/** The answer of POST /emails/batch: the accepted ids in order, and with `permissive` the refused indexes. */
function batchAnswer(result: BatchResult, isStrict: boolean): ResendBatchResponse {
  const data = result.data.flatMap((message) => (message ? [{ id: message.id }] : []));
  return isStrict ? { data } : { data, errors: result.errors.map(({ index, message }) => ({ index, message: inResendTerms(message) })) };
}

/** Each problem of one email named by its place in the batch: `to: ...` of the second becomes `emails.1.to: ...`. */
function inBatch(index: number, message: string): string[] {
  return message.split('; ').map((problem) => (/^[\w.-]+: /.test(problem) ? `emails.${index}.${problem}` : `emails.${index}: ${problem}`));
}

type ResendSendOptions = { isStrict: boolean; idempotencyKey?: string };

/**
 * POST /emails/batch: Resend's emails through message.sendBatch. `isStrict` (Resend's default): one refused email
 * refuses the batch and nothing is sent; else the valid ones go and `errors` names the others. The answer is
 * committed with the messages under the Idempotency-Key, as message.sendBatch's is.
 * @example const { data } = await sendResendEmails({ deps, orgId, mode: 'test' }, [{ from, to: 'ada@example.com', subject: 'Hi', text: 'Hello' }], { isStrict: true });
 */
export async function sendResendEmails(ctx: RequestContext, emails: unknown[], options: ResendSendOptions): Promise<ResendBatchResponse> {
  const { isStrict, idempotencyKey } = options;
  const answer = idempotencyKey === undefined ? undefined : { key: idempotencyKey, status: 200, body: (result: BatchResult) => batchAnswer(result, isStrict) };
  const result = await sendMessages(ctx, emails, { answer, parse: fromResendEmail, allOrNothing: isStrict });
  const [first] = result.errors;
  if (isStrict && first) {
    const message = result.errors.flatMap((error) => (emails.length === 1 ? [error.message] : inBatch(error.index, error.message))).join('; ');
    throw new AppError(first.code as 'BAD_REQUEST', inResendTerms(message));
  }
  return batchAnswer(result, isStrict);
}

/**
 * POST /emails: one email in Resend's shape through message.send; answers `{ id }`, the Tidings message id.
 * @example const { id } = await sendResendEmail({ deps, orgId, mode: 'test' }, { from, to: 'ada@example.com', subject: 'Hi', text: 'Hello' });
 */
export async function sendResendEmail(ctx: RequestContext, email: unknown, idempotencyKey?: string): Promise<ResendEmailId> {
  const answer = idempotencyKey === undefined ? undefined : { key: idempotencyKey, status: 200, body: (result: BatchResult) => ({ id: result.data[0]!.id }) };
  const result = await sendMessages(ctx, [email], { answer, parse: fromResendEmail, allOrNothing: true });
  const [error] = result.errors;
  if (error) throw new AppError(error.code as 'BAD_REQUEST', inResendTerms(error.message));
  return { id: result.data[0]!.id };
}

/** Resend's `last_event`: the newest entry of the status history, in Resend's words. */
function lastEventOf(message: MessageWithEvents): ResendLastEvent {
  const last = message.events.at(-1);
  const status = last?.status ?? message.status;
  if (status === 'failed' && last?.error?.code === 'SUPPRESSED') return 'suppressed';
  switch (status) {
    case 'sending':
      return 'queued';
    case 'undelivered':
      return 'failed';
    case 'received':
      return 'delivered';
    case 'delayed':
      return 'delivery_delayed';
    default:
      return status;
  }
}

const orNull = (list: string[]) => (list.length > 0 ? list : null);

/** A tag `name:value` back as Resend's `{ name, value }` (a tag without a colon has an empty value). */
function resendTagOf(tag: string): { name: string; value: string } {
  const colon = tag.indexOf(':');
  return colon === -1 ? { name: tag, value: '' } : { name: tag.slice(0, colon), value: tag.slice(colon + 1) };
}

/**
 * GET /emails/{id}: an email message in Resend's shape; an SMS, another organization's or another mode's message is
 * NOT_FOUND.
 * @example const email = await getResendEmail(deps, orgId, 'msg_...', 'test'); email.last_event // 'delivered'
 */
export async function getResendEmail(deps: Deps, orgId: string, id: string, mode?: KeyMode): Promise<ResendEmail> {
  const message = await getMessage(deps, orgId, id, mode);
  if (message.channelType !== 'email') throw new AppError('NOT_FOUND', 'Message not found');
  return {
    object: 'email',
    id: message.id,
    to: message.toAll,
    from: message.from,
    created_at: message.createdAt,
    subject: message.subject,
    html: message.html,
    text: message.text,
    cc: orNull(message.cc),
    bcc: orNull(message.bcc),
    reply_to: orNull(message.replyTo),
    last_event: lastEventOf(message),
    scheduled_at: message.scheduledAt,
    tags: message.tags.map(resendTagOf),
  };
}

/**
 * PATCH /emails/{id}: a scheduled email to a new `scheduled_at` (409 once it is no longer scheduled).
 * @example await rescheduleResendEmail({ deps, orgId, mode: 'test' }, 'msg_...', '2026-12-01T09:00:00Z') // { object: 'email', id }
 */
export async function rescheduleResendEmail(ctx: OrgContext, id: string, scheduledAt: string): Promise<ResendEmailRef> {
  try {
    const message = await rescheduleMessage(ctx, id, scheduledAt);
    return { object: 'email', id: message.id };
  } catch (error) {
    if (error instanceof AppError) throw new AppError(error.code, inResendTerms(error.message), error.status);
    throw error;
  }
}

/**
 * POST /emails/{id}/cancel: message.cancel, answered in Resend's shape.
 * @example await cancelResendEmail(deps, orgId, 'msg_...', 'test') // { object: 'email', id }
 */
export async function cancelResendEmail(deps: Deps, orgId: string, id: string, mode?: KeyMode): Promise<ResendEmailRef> {
  const message = await cancelMessage(deps, orgId, id, mode);
  return { object: 'email', id: message.id };
}
