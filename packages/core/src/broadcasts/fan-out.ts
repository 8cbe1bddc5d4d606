import type { Broadcast as BroadcastRow } from '@tidings/db';
import { broadcastJobId, sendQueueOf } from '@tidings/queue';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { recordEvents } from '../events.ts';
import { newId } from '../ids.ts';
import { loadSenderResolver } from '../messages/resolve-sender.ts';
import { EARLY_TOLERANCE_MS, addJobs, deliveryJobs, type OutboxItem } from '../outbox.ts';
import { unitOfWork } from '../unit-of-work.ts';
import { writeOutbox } from '../outbox.store.ts';
import { countSmsSegments } from '../sms/segments.ts';
import { quietUntil, zonesOf, type QuietHours } from '../sms/quiet-hours.ts';
import { toBroadcast } from './broadcast.mapper.ts';
import { BROADCAST_RENDER_ATTEMPTS, broadcastVariables, type Failure, type RecipientContact, type Rendered, renderEach, renderedProblem } from './broadcast-render.ts';
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

/** What a fan-out step tells its job: finished, or run again at `runAt` (a scheduled start, a finish not yet due). */
export type StepResult = { kind: 'done'; outcome: string } | { kind: 'not-yet'; runAt: Date };

/** How long the start's transaction (fixing every recipient) may take. */
const START_TIMEOUT_MS = 10 * 60_000;
/** How often the finish step looks whether every message of a broadcast has reached a provider. */
export const FINISH_CHECK_EVERY_MS = 1000;

/** The finish step's job of a broadcast, to run at `runAt`. */
export const finishJob = (broadcastId: string, runAt: Date): OutboxItem => ({ queue: 'broadcasts', jobId: broadcastJobId({ broadcastId, step: 'finish' }), runAt });
/** Ends a broadcast that cannot start (its segment or template was deleted since it was scheduled). */
async function cancelUnstartable(deps: Deps, row: BroadcastRow, reason: string): Promise<StepResult> {
  const now = deps.now();
  await unitOfWork(deps, async (tx, outbox) => {
    const canceled = await cancelUnstartedBroadcast(tx, row.id, now);
    if (canceled) outbox.add(await recordEvents(tx, [{ orgId: row.orgId, type: 'broadcast.canceled', data: toBroadcast(canceled) }]));
  });
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
  const started = await unitOfWork(
    deps,
    async (tx, outbox) => {
      const started = await startBroadcastRecipients(tx, row, { segment, topic, templateVersion: template.version, chunkSize, at });
      if (!started) return null;
      const jobs = [...firstChunkJobs(deps.config, row.id, started.chunkCount), finishJob(row.id, new Date(now.getTime() + FINISH_CHECK_EVERY_MS))];
      await writeOutbox(tx, jobs);
      outbox.add(jobs);
      outbox.add(await recordEvents(tx, [{ orgId: row.orgId, type: 'broadcast.sending', data: toBroadcast(started) }]));
      return started;
    },
    { timeout: START_TIMEOUT_MS, maxWait: 30_000 },
  );
  if (!started) return { kind: 'done', outcome: 'changed meanwhile' };
  deps.logger.info({ broadcastId, orgId: row.orgId, recipients: started.recipientCount, chunks: started.chunkCount }, 'broadcast started');
  return { kind: 'done', outcome: 'started' };
}

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
        { orgId: broadcast.orgId, templateId: broadcast.templateId, content: version! },
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
    const isQuiet = !!quietEnd && quietEnd > from;
    const waitUntil = isQuiet ? quietEnd : due;
    // a message held back waits as one deferred (message.get shows when and why), not as one the caller scheduled
    const held = waitUntil && waitUntil > now ? { scheduledAt: waitUntil.toISOString(), deferredReason: isQuiet ? ('quiet_hours' as const) : ('send_rate' as const) } : {};
    const message = { id: newId('msg'), to: (isEmail ? contact.email : contact.phone)!, contactId: contact.id, ...held };
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
  const written = await unitOfWork(
    deps,
    async (db, outbox) => {
      const written = await writeChunkMessages(db, { broadcast, chunk }, messages, {
        now: deps.now().toISOString(),
        provider: deps.providers.plannedFor(broadcast.mode, broadcast.channelType),
      });
      // a broadcast's message events: the bulk lane, as the messages
      if (written)
        outbox.add(
          deliveryJobs(
            written.deliveryIds.map((id) => ({ id, orgId: broadcast.orgId })),
            'bulk',
          ),
        );
      return written;
    },
    { transaction: false },
  );
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
    jobs = written.queuedIds.map((id) => ({ queue, jobId: id, orgId: broadcast.orgId, runAt: waitUntil.get(id) ?? null }));
  } else {
    const again = await selectChunkWaitingMessages(deps.db, broadcastId, chunk, size);
    jobs = again.map((m) => ({ queue, jobId: m.id, orgId: broadcast.orgId, runAt: m.scheduledAt }));
  }
  // Thrown errors leave the job to run again, which adds these jobs then: nothing is promised in the outbox for them.
  // They go to the bulk lane: a broadcast never waits in front of anyone's single sends. A message held by quiet
  // hours waits as a delayed job (and the stranded sweep re-adds it if Redis loses it).
  await addJobs(deps, [...jobs, ...nextChunkJobs(deps.config, broadcastId, chunk, broadcast.chunkCount)]);
  return { kind: 'done', outcome: written ? `created ${written.created}` : `re-added ${jobs.length}` };
}

/**
 * The finish step, repeated every FINISH_CHECK_EVERY_MS while the broadcast is `sending`: once every chunk is
 * written and no message waits for a provider (none `queued` or `sending`), the broadcast is `sent` (with `broadcast.sent`).
 * Released chunks still unwritten long after the start (their jobs lost with a Redis that restarted empty) are added
 * again (bulk-window.ts's lostChunks).
 * @example await finishBroadcast(deps, 'brd_...') // { kind: 'not-yet', runAt } until every message reached a provider
 */
export async function finishBroadcast(deps: Deps, broadcastId: string): Promise<StepResult> {
  const now = deps.now();
  const at = now.toISOString();
  const sent = await unitOfWork(deps, async (tx, outbox) => {
    const sent = await markBroadcastSentWhenDone(tx, broadcastId, at);
    if (sent) outbox.add(await recordEvents(tx, [{ orgId: sent.orgId, type: 'broadcast.sent', data: toBroadcast(sent) }]));
    return sent;
  });
  if (sent) {
    deps.logger.info({ broadcastId, orgId: sent.orgId }, 'broadcast sent');
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
export async function requeueStrandedBroadcasts(deps: Pick<Deps, 'db' | 'queues' | 'redis' | 'now'>, options: { overdueMs: number }): Promise<number> {
  const cutoff = new Date(deps.now().getTime() - options.overdueMs);
  const stranded = await findStrandedBroadcasts(deps.db, cutoff);
  const jobs = stranded.flatMap((b) => [
    { queue: 'broadcasts' as const, jobId: broadcastJobId({ broadcastId: b.id, step: 'start' }) },
    ...(b.status === 'sending' ? [finishJob(b.id, deps.now())] : []),
  ]);
  if (jobs.length > 0) await addJobs(deps, jobs);
  return stranded.length;
}
