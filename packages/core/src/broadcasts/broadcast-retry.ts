import type { Broadcast as BroadcastRow } from '@tidings/db';
import type { KeyMode } from '@tidings/providers';
import type { Deps } from '../deps.ts';
import { AppError, foundOr404 } from '../errors.ts';
import { sendQueueOf } from '@tidings/queue';
import { addJobs } from '../outbox.ts';
import { countSmsSegments } from '../sms/segments.ts';
import { findRecipientContacts } from '../contacts/contact.store.ts';
import { selectRetryableMessages } from '../messages/message.store.ts';
import { findTemplateVersionRow } from '../templates/template.store.ts';
import { findBroadcast, requeueFailedMessages, type RequeuedContent } from './broadcast.store.ts';
import { BROADCAST_RENDER_ATTEMPTS, broadcastVariables, type Failure, type RecipientContact, renderEach, renderedProblem } from './broadcast-render.ts';
import { finishJob } from './fan-out.ts';

/**
 * Reasons a message can fail that may pass on another try (a provider down, a render on a starved machine, a sender
 * not configured yet). Never SUPPRESSED or BOUNCED: the recipient said no, or the address does not exist.
 */
export const RETRYABLE_FAILURES = ['PROVIDER_FAILED', 'PROVIDER_UNAVAILABLE', 'RENDER_FAILED', 'SENDER_REFUSED', 'INTERNAL_ERROR'] as const;

type FailedMessage = { id: string; contactId: string | null; hasContent: boolean };

/** Renders again the failed messages that never had content (RENDER_FAILED), for the contacts that still exist. */
async function renderAgain(deps: Deps, broadcast: BroadcastRow, messages: FailedMessage[]): Promise<(RequeuedContent | (Failure & { id: string }))[]> {
  const version = await findTemplateVersionRow(deps.db, broadcast.templateId, broadcast.templateVersion ?? 0);
  if (!version || messages.length === 0) return [];
  const contacts = await findRecipientContacts(
    deps.db,
    broadcast.orgId,
    messages.flatMap((m) => (m.contactId ? [m.contactId] : [])),
  );
  const byContact = new Map<string, RecipientContact>(contacts.map((c) => [c.id, c]));
  const found = messages.filter((m) => m.contactId && byContact.has(m.contactId));
  const variables = found.map((m) => broadcastVariables(deps.config, broadcast, byContact.get(m.contactId!)!));
  const results = await renderEach(deps, { orgId: broadcast.orgId, templateId: broadcast.templateId, content: version }, variables, BROADCAST_RENDER_ATTEMPTS);
  const isEmail = broadcast.channelType === 'email';
  return found.map((message, index) => {
    const result = results[index]!;
    if ('code' in result) return { id: message.id, ...result };
    const problem = renderedProblem(result, isEmail);
    if (problem) return { id: message.id, ...problem };
    return isEmail
      ? { id: message.id, subject: result.subject, html: result.html, text: result.text }
      : { id: message.id, body: result.body, segments: countSmsSegments(result.body!).segments };
  });
}

/**
 * broadcast.retryFailed: the broadcast's messages that ended `failed` for a reason that can pass (RETRYABLE_FAILURES)
 * are queued again as the same messages (one per contact still): a message that failed to render is rendered again
 * first (and stays failed, with the new reason, if it fails again); each gets a `queued` entry in its history after
 * its `failed` one. A `sent` broadcast is `sending` again until they settle. Only a sending or sent broadcast (409
 * otherwise); another organization's, or another mode's for an API key, is 404.
 * @example await retryFailedBroadcastMessages(deps, orgId, 'brd_...', 'live') // { count: 335 }
 */
export async function retryFailedBroadcastMessages(deps: Deps, orgId: string, id: string, mode?: KeyMode): Promise<{ count: number }> {
  const broadcast = foundOr404(await findBroadcast(deps.db, orgId, id, mode), 'Broadcast');
  if (broadcast.status !== 'sending' && broadcast.status !== 'sent') {
    throw new AppError('CONFLICT', `Only sending or sent broadcasts have failed messages to retry; this one is ${broadcast.status}.`);
  }
  const failed = await selectRetryableMessages(deps.db, orgId, id, RETRYABLE_FAILURES);
  const rendered = await renderAgain(
    deps,
    broadcast,
    failed.filter((m) => !m.hasContent),
  );
  const again: RequeuedContent[] = [...failed.filter((m) => m.hasContent).map((m) => ({ id: m.id })), ...rendered.filter((r): r is RequeuedContent => !('code' in r))];
  const stillFailing = rendered.filter((r): r is Failure & { id: string } => 'code' in r);
  const now = deps.now().toISOString();
  const rows = await requeueFailedMessages(deps.db, deps.actor, { orgId, broadcastId: id, again, stillFailing, now });
  if (rows.length === 0) return { count: 0 };
  // BullMQ keeps a finished job for a day and ignores a new one under its id: the old jobs go first.
  // the bulk lane, like the broadcast's other messages
  const lane = sendQueueOf({ channelType: broadcast.channelType, broadcastId: id });
  await Promise.all(rows.map((row) => deps.queues[lane].remove(row.id).catch(() => 0)));
  const finish = finishJob(id, deps.now());
  await deps.queues.broadcasts.remove(finish.jobId).catch(() => 0);
  await addJobs(deps, [...rows.map((row) => ({ queue: lane, jobId: row.id })), finish]);
  deps.logger.info({ broadcastId: id, orgId, count: rows.length }, 'broadcast failed messages queued again');
  return { count: rows.length };
}
