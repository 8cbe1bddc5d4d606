import type { Broadcast as BroadcastRow, Contact as ContactRow } from '@tidings/db';
import { broadcastJobId, sendQueueOf } from '@tidings/queue';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { deliveryJobs, recordEvents } from '../events.ts';
import { newId } from '../ids.ts';
import { loadSenderResolver } from '../messages/resolve-sender.ts';
import { addJobs, dispatchOutbox, type OutboxItem } from '../outbox.ts';
import { writeOutbox } from '../outbox.store.ts';
import { countSmsSegments } from '../sms/segments.ts';
import { quietUntil, zonesOf, type QuietHours } from '../sms/quiet-hours.ts';
import { compileSimpleTemplate } from '../templates/simple-template.ts';
import type { TemplateContent } from '../templates/template-engine.ts';
import { toBroadcast } from './broadcast.mapper.ts';
import { chunkJob, firstChunkJobs, lostChunks, nextChunkJobs, windowOf, WINDOW_RECHECK_MS } from './bulk-window.ts';
import { findOrgSegment } from '../segments/segment.store.ts';
import { findTemplateLatestVersion, findTemplateVersionRow } from '../templates/template.store.ts';
import { findOrgTopic } from '../topics/topic.store.ts';
import {
  cancelUnstartedBroadcast,
  type ChunkMessage,
  type ChunkMessages,
  findBroadcastById,
  findBroadcastProgress,
  findStrandedBroadcasts,
  markBroadcastSentWhenDone,
  selectChunkWaitingMessages,
  selectFanOutRecipients,
  startBroadcastRecipients,
  writeChunkMessages,
} from './broadcast.store.ts';
import { preferencesUrl, unsubscribeUrl } from './unsubscribe-token.ts';

/** What a fan-out step tells its job: finished, or run again at `runAt` (a scheduled start, a finish not yet due). */
export type StepResult = { kind: 'done'; outcome: string } | { kind: 'not-yet'; runAt: Date };

/** A start job that runs this much before `scheduledAt` starts anyway (clock skew between Redis and the worker). */
const EARLY_TOLERANCE_MS = 1000;
/** How long the start's transaction (fixing every recipient) may take. */
const START_TIMEOUT_MS = 10 * 60_000;
/** How often the finish step looks whether every message of a broadcast has reached a provider. */
export const FINISH_CHECK_EVERY_MS = 1000;

/** The finish step's job of a broadcast, to run at `runAt`. */
export const finishJob = (broadcastId: string, runAt: Date): OutboxItem => ({ queue: 'broadcasts', jobId: broadcastJobId({ broadcastId, step: 'finish' }), runAt });
/** Ends a broadcast that cannot start (its segment or template was deleted since it was scheduled). */
async function cancelUnstartable(deps: Deps, row: BroadcastRow, reason: string): Promise<StepResult> {
  const now = deps.now();
  const outbox = await deps.db.$transaction(async (tx) => {
    const canceled = await cancelUnstartedBroadcast(tx, row.id, now);
    return canceled ? recordEvents(tx, [{ orgId: row.orgId, type: 'broadcast.canceled', data: toBroadcast(canceled) }]) : [];
  });
  await dispatchOutbox(deps, outbox);
  deps.logger.warn({ broadcastId: row.id, orgId: row.orgId, reason }, 'broadcast canceled: it cannot start');
  return { kind: 'done', outcome: 'canceled' };
}

/**
 * The start step: fixes the recipients in the database and cuts them into chunks, in one transaction whatever their
 * number (nothing is loaded into memory). The segment's contacts (in the topic, when it names one) with an address
 * for the channel are the recipients; those unsubscribed from the channel or on the suppression list are counted `suppressed`; the rest are
 * numbered 1..n in BroadcastRecipient. Records `broadcast.sending` and promises the jobs of the first chunks (the
 * rest follow as a chain, bulk-window.ts) and the finish job (outbox), then adds them. A start that already happened, or a canceled broadcast, does nothing.
 * @example await startBroadcast(deps, 'brd_...') // { kind: 'done', outcome: 'started' }
 */
export async function startBroadcast(deps: Deps, broadcastId: string): Promise<StepResult> {
  const now = deps.now();
  const row = await findBroadcastById(deps.db, broadcastId);
  if (!row || row.startedAt || !['scheduled', 'sending'].includes(row.status)) return { kind: 'done', outcome: row?.status ?? 'missing' };
  if (row.status === 'scheduled' && row.scheduledAt && row.scheduledAt.getTime() > now.getTime() + EARLY_TOLERANCE_MS) {
    return { kind: 'not-yet', runAt: row.scheduledAt };
  }
  const [segment, topic, template] = await Promise.all([
    row.segmentId ? findOrgSegment(deps.db, row.orgId, row.segmentId) : null,
    row.topicId ? findOrgTopic(deps.db, row.orgId, row.topicId) : null,
    findTemplateLatestVersion(deps.db, row.orgId, row.templateId),
  ]);
  if (row.segmentId && !segment) return cancelUnstartable(deps, row, 'the segment was deleted');
  if (row.topicId && !topic) return cancelUnstartable(deps, row, 'the topic was deleted');
  if (!template) return cancelUnstartable(deps, row, 'the template was deleted');

  const chunkSize = deps.config.broadcasts.chunkSize;
  const at = now.toISOString();
  // Fixing a large audience takes seconds (100,000 contacts under load: more than Prisma's 5 s default for an
  // interactive transaction, which failed the start again and again), hence START_TIMEOUT_MS.
  const result = await deps.db.$transaction(
    async (tx) => {
      const started = await startBroadcastRecipients(tx, row, { segment, topic, templateVersion: template.version, chunkSize, at });
      if (!started) return null;
      const jobs = [...firstChunkJobs(deps.config, row.id, started.chunkCount), finishJob(row.id, new Date(now.getTime() + FINISH_CHECK_EVERY_MS))];
      await writeOutbox(tx, jobs);
      const events = await recordEvents(tx, [{ orgId: row.orgId, type: 'broadcast.sending', data: toBroadcast(started) }]);
      return { started, outbox: [...jobs, ...events] };
    },
    { timeout: START_TIMEOUT_MS, maxWait: 30_000 },
  );
  if (!result) return { kind: 'done', outcome: 'changed meanwhile' };
  await dispatchOutbox(deps, result.outbox);
  deps.logger.info({ broadcastId, orgId: row.orgId, recipients: result.started.recipientCount, chunks: result.started.chunkCount }, 'broadcast started');
  return { kind: 'done', outcome: 'started' };
}

/** What a template sees of a contact (and all the fan-out reads of one); `position`: its number among the recipients. */
export type RecipientContact = Pick<ContactRow, 'id' | 'email' | 'phone' | 'firstName' | 'lastName' | 'attributes'> & { position?: number };

/** How far ahead of its first message's time a chunk of a broadcast with `sendRate` is written. */
export const SEND_RATE_LEAD_MS = 60_000;

/**
 * How long after the start the first message of a broadcast with `sendRate` is due: time to write the first chunk,
 * so that its first messages are not already late (and sent together) when they reach the queue.
 */
export const SEND_RATE_START_DELAY_MS = 5_000;

/**
 * When recipient `position` (1..n) of a broadcast with `sendRate` is due: SEND_RATE_START_DELAY_MS after the start
 * plus (position - 1) / sendRate minutes. Derived from what is stored alone, so any send-worker, before or after a
 * restart, holds the same pace.
 * @example dueAt({ startedAt, sendRate: 600 }, 11) // startedAt + 6 s
 */
export function dueAt(broadcast: Pick<BroadcastRow, 'startedAt' | 'sendRate'>, position: number): Date | null {
  if (!broadcast.sendRate || !broadcast.startedAt) return null;
  return new Date(broadcast.startedAt.getTime() + SEND_RATE_START_DELAY_MS + Math.floor(((position - 1) * 60_000) / broadcast.sendRate));
}

/** The contact as templates see it: `{{ contact.firstName }}`, `{{ contact.attributes.plan }}`. */
function contactVariables(contact: RecipientContact) {
  const { id, email, phone, firstName, lastName, attributes } = contact;
  return { id, email, phone, firstName, lastName, attributes: attributes ?? {} };
}

/**
 * What the template of `broadcast` sees for `contact`: the broadcast's variables, `contact`, `unsubscribeUrl` and
 * `preferencesUrl` (the fan-out and the dashboard's preview for one contact render with the same).
 */
export function broadcastVariables(config: Deps['config'], broadcast: Pick<BroadcastRow, 'id' | 'variables'>, contact: RecipientContact): Record<string, unknown> {
  const { publicApiUrl, broadcasts } = config;
  return {
    ...((broadcast.variables ?? {}) as Record<string, unknown>),
    contact: contactVariables(contact),
    unsubscribeUrl: unsubscribeUrl(publicApiUrl, broadcasts.unsubscribeSecret, { contactId: contact.id, broadcastId: broadcast.id }),
    preferencesUrl: preferencesUrl(publicApiUrl, broadcasts.unsubscribeSecret, { contactId: contact.id, broadcastId: broadcast.id }),
  };
}

/** Why a message of a broadcast failed before reaching a provider. */
export type Failure = { code: string; message: string };
type Rendered = Required<TemplateContent>;

/**
 * Times a chunk is tried before a render over the budget fails its messages. The budget is the render thread's CPU
 * time (a saturated machine's wait for a core does not count), so a harmless template does not run past it; a try
 * again covers a thread that died. A hostile template costs one budget per try.
 */
export const BROADCAST_RENDER_ATTEMPTS = 3;

/**
 * Renders one template for each set of variables: a template that only inserts variables on this thread (it cannot
 * loop: about 3 ms per 1,000 contacts, less than sending them to a thread), any other on the render threads
 * (deps.renderer), `renderBatchSize` contacts per task and one TEMPLATE_RENDER_BUDGET_MS per task, so the worker's
 * event loop never waits for a Liquid render. As many
 * tasks run at once as there are render threads (one at a time, a chunk waited a thread round trip per task). A
 * contact's own error (a missing attribute) is its failure. A task over the budget throws while `attempt` is below
 * BROADCAST_RENDER_ATTEMPTS (the chunk runs again); at the last it fails the contacts not rendered yet and starts no
 * other task: every contact has the same template, so each task would spend the budget again.
 */
export async function renderEach(
  deps: Deps,
  orgId: string,
  templateId: string,
  content: TemplateContent,
  variables: Record<string, unknown>[],
  attempt: number,
): Promise<(Rendered | Failure)[]> {
  const size = deps.config.broadcasts.renderBatchSize;
  const { budgetMs, threads } = deps.config.templateRender;
  const results: (Rendered | Failure | undefined)[] = new Array(variables.length);
  // A template that only inserts variables renders here, a few microseconds a contact (simple-template.ts); the
  // contacts it leaves to Liquid (and every contact of any other template) go to the render threads.
  const simple = compileSimpleTemplate(content);
  const pending: number[] = [];
  for (const [index, v] of variables.entries()) {
    const rendered = simple?.(v);
    if (rendered) results[index] = rendered;
    else pending.push(index);
  }
  let next = 0;
  let overBudget: number | null = null; // the size of a task that ran over the budget
  const runTasks = async (): Promise<void> => {
    while (overBudget === null && next < pending.length) {
      const batch = pending.slice(next, next + size);
      next += size;
      try {
        const rendered = await deps.renderer.render(
          batch.map((index) => ({ templateId, content, variables: variables[index]! })),
          { orgId },
        );
        rendered.forEach((r, i) => {
          results[batch[i]!] = r instanceof AppError ? { code: 'RENDER_FAILED', message: r.message } : r;
        });
      } catch (error) {
        // the renderer's only AppError is the budget; anything else (a render thread that died) runs the chunk again
        if (!(error instanceof AppError)) throw error;
        overBudget = batch.length;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(threads, Math.ceil(pending.length / size)) }, runTasks));
  if (overBudget === null) return results as (Rendered | Failure)[];
  if (attempt < BROADCAST_RENDER_ATTEMPTS) throw new Error(`rendering the template ${templateId} took more than the ${budgetMs} ms CPU budget (try ${attempt})`);
  const message = `templateId: rendering the template ${templateId} for ${overBudget} contact(s) took more than the ${budgetMs} ms of CPU time its budget allows; simplify its loops or filters.`;
  return Array.from(results, (r) => r ?? { code: 'RENDER_FAILED', message });
}

/** What makes a rendered message unsendable (no subject or content, an empty SMS), or null. */
export function renderedProblem({ subject, html, text, body }: Rendered, isEmail: boolean): Failure | null {
  if (isEmail && (!subject || (!html && !text))) return { code: 'RENDER_FAILED', message: 'The rendered email has no subject, or neither html nor text' };
  if (!isEmail && !body) return { code: 'RENDER_FAILED', message: 'The rendered SMS body is empty' };
  return null;
}

/**
 * One chunk's messages, rendered per contact. A contact whose rendering fails gets a `failed` message carrying the
 * reason (`RENDER_FAILED`), so it is counted and the rest of the chunk still goes.
 */
async function messagesFor(deps: Deps, broadcast: BroadcastRow, contacts: RecipientContact[], attempt: number): Promise<ChunkMessages> {
  const [version, senderOf] = await Promise.all([
    findTemplateVersionRow(deps.db, broadcast.templateId, broadcast.templateVersion!),
    loadSenderResolver(deps, broadcast.orgId, broadcast.mode, [{ channelType: broadcast.channelType, from: broadcast.from ?? undefined }]),
  ]);
  let from = '';
  let refusal: Failure | null = null; // what fails every message of the chunk
  try {
    from = senderOf({ channelType: broadcast.channelType, from: broadcast.from ?? undefined });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    refusal = { code: 'SENDER_REFUSED', message: error.message };
  }
  if (!refusal && !version) refusal = { code: 'RENDER_FAILED', message: 'templateVersion: the template version is gone' };
  const failure = refusal;
  const isEmail = broadcast.channelType === 'email';
  const renderings: (Rendered | Failure)[] = failure
    ? contacts.map(() => failure)
    : await renderEach(
        deps,
        broadcast.orgId,
        broadcast.templateId,
        version!,
        contacts.map((contact) => broadcastVariables(deps.config, broadcast, contact)),
        attempt,
      );
  const now = deps.now();
  const quietHours = broadcast.quietHours as QuietHours | null;
  const messages = contacts.map((contact, index): ChunkMessage => {
    // the later of the broadcast's pace and the recipient's quiet hours (counted from when it is due)
    const due = contact.position === undefined ? null : dueAt(broadcast, contact.position);
    const from = due && due > now ? due : now;
    const quietEnd = quietHours && quietUntil(from, quietHours, zonesOf(contact));
    const waitUntil = quietEnd && quietEnd > from ? quietEnd : due;
    const message = {
      id: newId('msg'),
      to: (isEmail ? contact.email : contact.phone)!,
      contactId: contact.id,
      ...(waitUntil && waitUntil > now ? { scheduledAt: waitUntil.toISOString() } : {}),
    };
    const rendering = renderings[index]!;
    const error = 'code' in rendering ? rendering : renderedProblem(rendering, isEmail);
    if (error) return { ...message, errorCode: error.code, errorMessage: error.message };
    const { subject, html, text, body } = rendering as Rendered;
    return isEmail ? { ...message, subject, html, text } : { ...message, body, segments: countSmsSegments(body!).segments };
  });
  // the domain's tracking settings (a test broadcast's sender is not one of the domains: off)
  const tracking = isEmail && from ? senderOf.trackingOf(from) : { opens: false, clicks: false };
  return { from, tracking, messages };
}

/**
 * A chunk step: renders and writes the messages of recipients `chunk * size + 1 .. (chunk + 1) * size` (one query
 * for the contacts, one statement for the messages, one addBulk for their jobs; memory holds one chunk), then
 * releases the next chunk of the chain. While the organization's window is full it writes nothing and looks again
 * later (bulk-window.ts). Safe to run any number of times: a chunk written before only has its still-queued
 * messages' jobs added again (a crash between the commit and the addBulk); jobId = message id makes that harmless.
 * `options.attempt` is the job's try: a render over the budget throws before the last of BROADCAST_RENDER_ATTEMPTS
 * (the last by default).
 * @example await expandBroadcastChunk(deps, 'brd_...', 0) // { kind: 'done', outcome: 'created 1000' }
 */
export async function expandBroadcastChunk(deps: Deps, broadcastId: string, chunk: number, options: { attempt?: number } = {}): Promise<StepResult> {
  const broadcast = await findBroadcastById(deps.db, broadcastId);
  if (broadcast?.status !== 'sending' || !broadcast.startedAt) return { kind: 'done', outcome: broadcast?.status ?? 'missing' };
  const window = await windowOf(deps, broadcast.orgId, broadcastId, chunk);
  if (!window.written && window.full) return { kind: 'not-yet', runAt: new Date(deps.now().getTime() + WINDOW_RECHECK_MS * (1 + Math.random())) };
  const size = deps.config.broadcasts.chunkSize;
  // with a sendRate, a chunk is written shortly before its first message is due: its jobs wait in Redis a minute, not hours
  const firstDue = dueAt(broadcast, chunk * size + 1);
  if (!window.written && firstDue && firstDue.getTime() - deps.now().getTime() > SEND_RATE_LEAD_MS) {
    return { kind: 'not-yet', runAt: new Date(firstDue.getTime() - SEND_RATE_LEAD_MS) };
  }
  const contacts = await selectFanOutRecipients(deps.db, broadcastId, chunk, size);
  const messages = await messagesFor(deps, broadcast, contacts, options.attempt ?? BROADCAST_RENDER_ATTEMPTS);
  // written even when empty (its contacts deleted since the start): the chunk counts as done either way
  const written = await writeChunkMessages(deps.db, broadcast, chunk, messages, {
    now: deps.now().toISOString(),
    provider: deps.providers.plannedFor(broadcast.mode, broadcast.channelType),
  });
  const queue = sendQueueOf({ channelType: broadcast.channelType, broadcastId: broadcast.id });
  let jobs: OutboxItem[];
  if (written) {
    deps.metrics.broadcastRecipientsExpanded.inc(contacts.length);
    deps.metrics.broadcastMessagesCreated.inc(written.created);
    if (written.failed > 0) {
      // their final outcome, counted like any message's; one line for the chunk rather than one per contact
      deps.metrics.messages.inc({ channel: broadcast.channelType, status: 'failed' }, written.failed);
      deps.logger.warn({ broadcastId, orgId: broadcast.orgId, chunk, failed: written.failed }, 'broadcast messages failed to render');
    }
    const waitUntil = new Map(messages.messages.flatMap((m) => (m.scheduledAt ? [[m.id, new Date(m.scheduledAt)]] : [])));
    jobs = written.queuedIds.map((id) => ({ queue, jobId: id, runAt: waitUntil.get(id) ?? null }));
    // a broadcast's message events: the bulk lane, as the messages
    await dispatchOutbox(
      deps,
      deliveryJobs(
        written.deliveryIds.map((id) => ({ id })),
        'bulk',
      ),
    );
  } else {
    const again = await selectChunkWaitingMessages(deps.db, broadcastId, chunk, size);
    jobs = again.map((m) => ({ queue, jobId: m.id, runAt: m.scheduledAt }));
  }
  // Thrown errors leave the job to run again, which adds these jobs then: nothing is promised in the outbox for them.
  // They go to the bulk lane: a broadcast never waits in front of anyone's single sends. A message held by quiet
  // hours waits as a delayed job (and the stranded sweep re-adds it if Redis loses it).
  await addJobs(deps, [...jobs, ...nextChunkJobs(deps.config, broadcastId, chunk, broadcast.chunkCount)]);
  return { kind: 'done', outcome: written ? `created ${written.created}` : `re-added ${jobs.length}` };
}

/**
 * The finish step, repeated every FINISH_CHECK_EVERY_MS while the broadcast is `sending`: once every chunk is
 * written and no message waits for a provider (none `queued`), the broadcast is `sent` (with `broadcast.sent`).
 * Released chunks still unwritten long after the start (their jobs lost with a Redis that restarted empty) are added
 * again (bulk-window.ts's lostChunks).
 * @example await finishBroadcast(deps, 'brd_...') // { kind: 'not-yet', runAt } until every message reached a provider
 */
export async function finishBroadcast(deps: Deps, broadcastId: string): Promise<StepResult> {
  const now = deps.now();
  const at = now.toISOString();
  const result = await deps.db.$transaction(async (tx) => {
    const sent = await markBroadcastSentWhenDone(tx, broadcastId, at);
    return sent ? { sent, outbox: await recordEvents(tx, [{ orgId: sent.orgId, type: 'broadcast.sent', data: toBroadcast(sent) }]) } : null;
  });
  if (result) {
    await dispatchOutbox(deps, result.outbox);
    deps.logger.info({ broadcastId, orgId: result.sent.orgId }, 'broadcast sent');
    return { kind: 'done', outcome: 'sent' };
  }
  const current = await findBroadcastProgress(deps.db, broadcastId);
  // not started yet: look again later (finishing now would leave the broadcast without a finish job)
  const isStarting = current?.status === 'scheduled' || (current?.status === 'sending' && !current.startedAt);
  if (!current || (current.status !== 'sending' && !isStarting)) return { kind: 'done', outcome: current?.status ?? 'missing' };
  if (current.startedAt && now.getTime() - current.startedAt.getTime() > deps.config.strandedJobAfterMs) {
    const missing = await lostChunks(deps, broadcastId, current.chunkCount);
    if (missing.length > 0)
      await addJobs(
        deps,
        missing.map((chunk) => chunkJob(broadcastId, chunk)),
      );
  }
  return { kind: 'not-yet', runAt: new Date(now.getTime() + FINISH_CHECK_EVERY_MS) };
}

/**
 * The safety net for broadcasts whose step jobs Redis lost (it restarted without its data): a scheduled broadcast
 * long past its time, or one `sending` unchanged this long, gets its start and finish jobs added again (jobId
 * dedupes a job still there; a step that finds its work done does nothing). The finish step then re-adds lost
 * chunks. One query over the broadcasts in flight; run by the send-worker's sweep with the stranded messages.
 * @returns how many broadcasts it looked after
 * @example await requeueStrandedBroadcasts(deps, { overdueMs: 10 * 60_000 });
 */
export async function requeueStrandedBroadcasts(deps: Pick<Deps, 'db' | 'queues' | 'now'>, options: { overdueMs: number }): Promise<number> {
  const cutoff = new Date(deps.now().getTime() - options.overdueMs);
  const stranded = await findStrandedBroadcasts(deps.db, cutoff);
  const jobs = stranded.flatMap((b) => [
    { queue: 'broadcasts' as const, jobId: broadcastJobId({ broadcastId: b.id, step: 'start' }) },
    ...(b.status === 'sending' ? [finishJob(b.id, deps.now())] : []),
  ]);
  if (jobs.length > 0) await addJobs(deps, jobs);
  return stranded.length;
}
