import { MESSAGE_LIMITS, SendMessageBody, type BatchItemError, type Message, type z } from '@tidings/contracts';
import type { KeyMode } from '@tidings/providers';
import type { Message as MessageRow } from '@tidings/db';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
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
import type { RequestTrace } from '@tidings/runtime';

export type BatchResult = { data: (Message | null)[]; errors: BatchItemError[] };

/**
 * `parse`: turns one item into a send body, throwing an AppError naming what is wrong (another door's shape, such
 * as Resend's, maps onto message.send here); message.send's own schema by default. `allOrNothing`: when any item
 * fails, none is written (every `data` entry is null).
 */
export type SendOptions = { parse?: (item: unknown) => SendMessageBody; allOrNothing?: boolean };

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

/** `scheduledAt` as a time, or a 400 when it is further ahead than a message may be scheduled. */
export function checkSchedule(item: { scheduledAt?: string }, now: Date): Date | null {
  const scheduledAt = item.scheduledAt ? new Date(item.scheduledAt) : null;
  if (scheduledAt && scheduledAt.getTime() > now.getTime() + MESSAGE_LIMITS.scheduleDaysAhead * 86_400_000) {
    throw new AppError('BAD_REQUEST', `scheduledAt: must be at most ${MESSAGE_LIMITS.scheduleDaysAhead} days ahead`);
  }
  return scheduledAt;
}

/**
 * message.sendBatch (and, with one item, message.send): validates every item on its own (errors by index, the
 * valid ones still go), resolves content and senders in a bounded number of queries, then writes everything in ONE
 * statement (`createMessageWrites`) and enqueues after commit (`jobId` = message id; a scheduled one as a delayed job). A
 * committed message is never stranded: if the enqueue fails, the outbox relay does it. With `answer`, the response
 * is committed with the messages under the request's Idempotency-Key, so a retry after a lost reply replays it.
 * `trace`: the request's, continued by the messages' jobs (a group commit adds several requests' jobs at once).
 * @example const { data, errors } = await sendMessages(deps, orgId, 'test', [{ channelType: 'sms', to: '+14155550123', body: 'hi' }]);
 */
export async function sendMessages(
  deps: Deps,
  orgId: string,
  mode: KeyMode,
  items: unknown[],
  answer?: IdempotentAnswer<BatchResult>,
  trace?: RequestTrace,
  { parse = parseSendBody, allOrNothing = false }: SendOptions = {},
): Promise<BatchResult> {
  const now = deps.now();
  const errors: BatchItemError[] = [];
  const fail = (index: number, error: unknown) => {
    if (!(error instanceof AppError)) throw error;
    errors.push({ index, code: error.code, message: error.message });
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
  const [senderOf, recipientOf, renderings] = await Promise.all([
    loadSenderResolver(deps, orgId, mode, valid),
    loadRecipientResolver(deps, orgId, valid),
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
      const from = senderOf(item);
      const rendering = renderingOf.get(item);
      const content = resolveContent(item, rendering);
      // the template's Reply-To, unless the send gives its own
      if (item.replyTo === undefined && rendering && !(rendering instanceof AppError)) envelope.replyTo = rendering.replyTo;
      // last: it may look up DNS, and it decodes the attachments only once everything else is known to be right
      const { attachments, contents: itemContents } = await prepareAttachments(item, orgId, pathPolicyOf(deps.config));
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
 * @example const message = await sendMessage(deps, orgId, 'test', { channelType: 'email', to: 'ada@example.com', subject: 'Hi', text: 'Hello' });
 */
export async function sendMessage(deps: Deps, orgId: string, mode: KeyMode, body: SendMessageBody, answer?: IdempotentAnswer<Message>, trace?: RequestTrace): Promise<Message> {
  const { data, errors } = await sendMessages(deps, orgId, mode, [body], answer && { ...answer, body: (result) => answer.body(result.data[0]!) }, trace);
  const [error] = errors;
  if (error) throw new AppError(error.code as 'BAD_REQUEST', error.message);
  return data[0]!;
}
