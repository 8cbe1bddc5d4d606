import { MESSAGE_LIMITS, SendMessageBody, type BatchItemError, type Message, type z } from '@tidings/contracts';
import type { Message as MessageRow } from '@tidings/db';
import type { RequestContext } from '../request-context.ts';
import { AppError, RetryLaterError } from '../errors.ts';
import { IdempotencyKeyTaken, type IdempotentAnswer } from '../idempotency.ts';
import { newId } from '../ids.ts';
import { toMessage } from './message.mapper.ts';
import { attachmentStore, type StoredContent } from '../attachments/attachment-store.ts';
import { pathPolicyOf, prepareAttachments } from './attachments.ts';
import { resolveEnvelope } from './envelope.ts';
import { loadRecipientResolver } from './resolve-recipient.ts';
import { resolveContent } from './resolve-content.ts';
import { renderTemplatesForSend } from '../templates/render-for-send.ts';
import { loadSenderResolver } from './resolve-sender.ts';
import { countSmsSegments } from '../sms/segments.ts';
import { guardSmsSends } from '../sms/sms-fraud-guard.ts';

export type BatchResult = { data: (Message | null)[]; errors: BatchItemError[] };

/**
 * `parse`: turns one item into a send body, throwing an AppError naming what is wrong (another door's shape, such
 * as Resend's, maps onto message.send here); message.send's own schema by default. `allOrNothing`: when any item
 * fails, none is written (every `data` entry is null). `attachmentBytes`: per item, the bytes of its attachments by
 * index, for a door that has them decoded already (the SMTP app's MIME parser): such an attachment's `content` is
 * empty and these bytes are stored as they are, never turned into base64 and back (a 34 MiB file held three times
 * over, as bytes, as base64 and as bytes again).
 */
/**
 * `answer`: the response, stored with the messages under the request's Idempotency-Key; `parse`: how an item is read
 * (the Resend-compatible shape has its own); `allOrNothing`: one refused item refuses them all; `attachmentBytes`: per
 * item, its attachments' bytes as the SMTP door decoded them.
 */
export type SendOptions = {
  answer?: IdempotentAnswer<BatchResult>;
  parse?: (item: unknown) => SendMessageBody;
  allOrNothing?: boolean;
  attachmentBytes?: readonly (readonly (Buffer | undefined)[] | undefined)[];
};

function parseSendBody(raw: unknown): SendMessageBody {
  const result = SendMessageBody.safeParse(raw);
  if (!result.success) throw new AppError('BAD_REQUEST', describeIssues(result.error));
  return result.data;
}

/** A zod error as one line naming each field: `to: required; cc.2: must be an email address`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => `${[...issue.path, key].join('.')}: unknown field`).join('; ')
        : `${issue.path.length > 0 ? issue.path.join('.') : 'body'}: ${issue.message}`,
    )
    .join('; ');
}

/** The options a send set (one left out follows the domain). */
const definedOf = (tracking: SendMessageBody['tracking']) => Object.fromEntries(Object.entries(tracking ?? {}).filter(([, on]) => on !== undefined));

/** An SMS with neither `from` nor `to`: its recipient (and so its pooled number) is the contact's phone. */
const isPooledByContact = (item: SendMessageBody) => item.channelType === 'sms' && item.from === undefined && item.to === undefined && item.contactId !== undefined;

/** The item as the pool sees it: with the contact's phone as `to` (an unknown contact is refused later, by its own resolution). */
function withPoolRecipient(item: SendMessageBody, recipientOf: (item: SendMessageBody) => { to: string }): SendMessageBody {
  if (!isPooledByContact(item)) return item;
  try {
    return { ...item, to: recipientOf(item).to };
  } catch {
    return item;
  }
}

/** How far in the past a `scheduledAt` may be (a client's clock running behind): it then means now. */
const SCHEDULE_PAST_TOLERANCE_MS = 5 * 60_000;

/**
 * `scheduledAt` as a time, or a 400 when it is further ahead than a message may be scheduled or more than a few
 * minutes past (a mistake, not "now"). The one schedule rule of message.send, PATCH /emails/{id} and broadcast.send.
 */
export function checkSchedule(item: { scheduledAt?: string }, now: Date): Date | null {
  const scheduledAt = item.scheduledAt ? new Date(item.scheduledAt) : null;
  if (scheduledAt && scheduledAt.getTime() > now.getTime() + MESSAGE_LIMITS.scheduleDaysAhead * 86_400_000) {
    throw new AppError('BAD_REQUEST', `scheduledAt: must be at most ${MESSAGE_LIMITS.scheduleDaysAhead} days ahead`);
  }
  if (scheduledAt && scheduledAt.getTime() < now.getTime() - SCHEDULE_PAST_TOLERANCE_MS) {
    throw new AppError('BAD_REQUEST', `scheduledAt: ${scheduledAt.toISOString()} is in the past; give a time from now up to ${MESSAGE_LIMITS.scheduleDaysAhead} days ahead`);
  }
  return scheduledAt;
}

/**
 * message.sendBatch (and, with one item, message.send): validates every item on its own (errors by index, the
 * valid ones still go), resolves content and senders in a bounded number of queries, then writes everything in ONE
 * statement (`createMessageWrites`) and enqueues after commit (`jobId` = message id; a scheduled one as a delayed job). A
 * committed message is never stranded: if the enqueue fails, the outbox relay does it. With `answer`, the response
 * is committed with the messages under the request's Idempotency-Key, so a retry after a lost reply replays it.
 * The request's `trace` is continued by the messages' jobs (a group commit adds several requests' jobs at once).
 * @example const { data, errors } = await sendMessages({ deps, orgId, mode: 'test' }, [{ channelType: 'sms', to: '+14155550123', body: 'hi' }]);
 */
export async function sendMessages(
  ctx: RequestContext,
  items: unknown[],
  { answer, parse = parseSendBody, allOrNothing = false, attachmentBytes = [] }: SendOptions = {},
): Promise<BatchResult> {
  const { deps, orgId, mode, trace } = ctx;
  const now = deps.now();
  const errors: BatchItemError[] = [];
  const fail = (index: number, error: unknown) => {
    if (!(error instanceof AppError)) throw error;
    const entry = { index, code: error.code, message: error.message };
    // kept off the JSON answer: sendMessage turns it back into Retry-After
    if (error instanceof RetryLaterError) Object.defineProperty(entry, 'retryAfterSeconds', { value: error.retryAfterSeconds, enumerable: false });
    errors.push(entry);
  };

  const parsed = items.map((raw, index) => {
    try {
      return parse(raw);
    } catch (error) {
      fail(index, error);
      return null;
    }
  });
  const valid = parsed.filter((p): p is SendMessageBody => p !== null);
  const withTemplate = valid.filter((p) => p.templateId !== undefined);
  const recipientsLoaded = loadRecipientResolver(deps, orgId, valid);
  const [senderOf, recipientOf, renderings] = await Promise.all([
    // an SMS by contactId alone takes its number from the pool by the contact's phone, once that is known
    valid.some(isPooledByContact)
      ? recipientsLoaded.then((recipientOf) =>
          loadSenderResolver(
            deps,
            orgId,
            mode,
            valid.map((item) => withPoolRecipient(item, recipientOf)),
          ),
        )
      : loadSenderResolver(deps, orgId, mode, valid),
    recipientsLoaded,
    renderTemplatesForSend(
      deps,
      orgId,
      withTemplate.map((p) => ({ ...p, templateId: p.templateId! })),
    ),
  ]);
  const renderingOf = new Map(withTemplate.map((p, i) => [p, renderings[i]]));

  const rows: MessageRow[] = [];
  const contents: StoredContent[] = [];
  for (const [index, item] of parsed.entries()) {
    if (!item) continue;
    try {
      const { to, additionalTo } = recipientOf(item);
      const scheduledAt = checkSchedule(item, now);
      const envelope = resolveEnvelope(item, 1 + additionalTo.length);
      const from = senderOf(isPooledByContact(item) ? { ...item, to } : item);
      const rendering = renderingOf.get(item);
      const content = resolveContent(item, rendering);
      // the template's Reply-To, unless the send gives its own
      if (item.replyTo === undefined && rendering && !(rendering instanceof AppError)) envelope.replyTo = rendering.replyTo;
      // last: it may look up DNS, and it decodes the attachments only once everything else is known to be right
      const { attachments, contents: itemContents } = await prepareAttachments(item, orgId, pathPolicyOf(deps.config), attachmentBytes[index]);
      contents.push(...itemContents);
      const isScheduled = scheduledAt !== null && scheduledAt > now;
      // decided now (the send's choice, else its domain's); carried out at send time on the final html
      const tracking = item.channelType === 'email' ? { ...senderOf.trackingOf(from), ...definedOf(item.tracking) } : null;
      rows[index] = {
        id: newId('msg'),
        orgId,
        channelType: item.channelType,
        direction: 'outbound',
        to,
        additionalTo,
        from,
        ...envelope,
        ...content,
        attachments,
        contactId: item.contactId ?? null,
        broadcastId: null,
        status: isScheduled ? 'scheduled' : 'queued',
        segments: item.channelType === 'sms' ? countSmsSegments(content.body!).segments : null,
        provider: deps.providers.plannedFor(mode, item.channelType),
        mode,
        providerMessageId: null,
        errorCode: null,
        errorMessage: null,
        attempts: 0,
        tags: item.tags ?? [],
        metadata: item.metadata ?? {},
        scheduledAt,
        deferredUntil: null,
        deferredReason: null,
        keywordReply: null,
        sentAt: null,
        deliveredAt: null,
        failedAt: null,
        openedAt: null,
        clickedAt: null,
        trackOpens: tracking?.opens ?? false,
        trackClicks: tracking?.clicks ?? false,
        createdAt: now,
        updatedAt: now,
      };
    } catch (error) {
      fail(index, error);
    }
  }

  // the SMS fraud guard, before any SMS is written
  const smsItems = rows.flatMap((row, index) => (row?.channelType === 'sms' ? [{ index, to: row.to }] : []));
  for (const [index, error] of await guardSmsSends(deps, orgId, mode, smsItems)) {
    delete rows[index];
    fail(index, error);
  }

  errors.sort((a, b) => a.index - b.index);
  if (allOrNothing && errors.length > 0) return { data: items.map(() => null), errors };
  const data = items.map((_, index) => (rows[index] ? toMessage(rows[index]) : null));
  const result = { data, errors };
  const accepted = rows.flatMap((row, index) => (row ? [{ row, message: data[index]! }] : []));
  if (accepted.length > 0) {
    const keyed = answer
      ? { orgId, mode, key: answer.key, status: answer.status, body: answer.body(result), ...(answer.reserve ? { reserve: { ...answer.reserve, at: now } } : {}) }
      : null;
    // The bytes go to the store first (once, never into the message statement or a job); if the messages cannot
    // be written they are removed again, so a failed request leaves nothing behind.
    const store = attachmentStore(deps);
    await store.put(contents);
    try {
      // a key another request holds: nothing was written (see IdempotentAnswer)
      if ((await deps.batchers.messageWrites({ orgId, accepted, answer: keyed, trace })) === 'keyTaken') throw new IdempotencyKeyTaken();
    } catch (error) {
      await store.remove(contents.map((c) => c.key)).catch((cleanupError) => deps.logger.warn({ err: cleanupError }, 'could not remove the attachments of a failed send'));
      throw error;
    }
  }
  return result;
}

/**
 * message.send: one message; an invalid one is a 400 naming the field.
 * @example const message = await sendMessage({ deps, orgId, mode: 'test' }, { channelType: 'email', to: 'ada@example.com', subject: 'Hi', text: 'Hello' });
 */
export async function sendMessage(
  ctx: RequestContext,
  body: SendMessageBody,
  answer?: IdempotentAnswer<Message>,
  options: { attachmentBytes?: readonly (Buffer | undefined)[]; validated?: boolean } = {},
): Promise<Message> {
  const { data, errors } = await sendMessages(ctx, [body], {
    answer: answer && { ...answer, body: (result) => answer.body(result.data[0]!) },
    attachmentBytes: [options.attachmentBytes],
    // the API's route validated the body against this same schema already: once is enough (a 512 KiB html is walked
    // by zod each time); a body built by another door (SMTP) is validated here
    ...(options.validated ? { parse: (item: unknown) => item as SendMessageBody } : {}),
  });
  const [error] = errors;
  if (error)
    throw retryAfterOf(error) ? new RetryLaterError(error.message, retryAfterOf(error)!, error.code as 'RATE_LIMITED') : new AppError(error.code as 'BAD_REQUEST', error.message);
  return data[0]!;
}

/**
 * The seconds a refused item may be retried after (a rate limit's refusal), or undefined.
 * @example if (retryAfterOf(errors[0])) c.header('Retry-After', String(retryAfterOf(errors[0])));
 */
export function retryAfterOf(error: BatchItemError): number | undefined {
  return (error as BatchItemError & { retryAfterSeconds?: number }).retryAfterSeconds;
}
