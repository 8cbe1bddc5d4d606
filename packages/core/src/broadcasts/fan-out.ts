import type { SegmentCriteria } from '@tidings/contracts';
import { columnsOf, Prisma, queryPrepared, type Broadcast as BroadcastRow, type Contact as ContactRow } from '@tidings/db';
import { broadcastJobId, sendQueueOf } from '@tidings/queue';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { eventsCte, deliveryJobs, recordEvents } from '../events.ts';
import { newId } from '../ids.ts';
import { messageJsonSql } from '../messages/message.mapper.ts';
import { loadSenderResolver } from '../messages/resolve-sender.ts';
import { addJobs, dispatchOutbox, outboxInsert, type OutboxItem } from '../outbox.ts';
import { compileCriteria } from '../segments/criteria-sql.ts';
import { countSmsSegments } from '../sms/segments.ts';
import { quietUntil, zonesOf, type QuietHours } from '../sms/quiet-hours.ts';
import { compileSimpleTemplate } from '../templates/simple-template.ts';
import type { TemplateContent } from '../templates/template-engine.ts';
import { toBroadcast } from './broadcast.mapper.ts';
import { chunkJob, firstChunkJobs, lostChunks, nextChunkJobs, windowOf, WINDOW_RECHECK_MS } from './bulk-window.ts';
import { inTopicSql } from '../topics/contact-topics.ts';
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
    const [canceled] = await tx.broadcast.updateManyAndReturn({
      where: { id: row.id, status: { in: ['scheduled', 'sending'] }, startedAt: null },
      data: { status: 'canceled', canceledAt: now, updatedAt: now },
    });
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
  const row = await deps.db.broadcast.findUnique({ where: { id: broadcastId } });
  if (!row || row.startedAt || !['scheduled', 'sending'].includes(row.status)) return { kind: 'done', outcome: row?.status ?? 'missing' };
  if (row.status === 'scheduled' && row.scheduledAt && row.scheduledAt.getTime() > now.getTime() + EARLY_TOLERANCE_MS) {
    return { kind: 'not-yet', runAt: row.scheduledAt };
  }
  const [segment, topic, template] = await Promise.all([
    row.segmentId ? deps.db.segment.findFirst({ where: { id: row.segmentId, orgId: row.orgId } }) : null,
    row.topicId ? deps.db.topic.findFirst({ where: { id: row.topicId, orgId: row.orgId } }) : null,
    deps.db.template.findFirst({ where: { id: row.templateId, orgId: row.orgId, deletedAt: null }, select: { version: true } }),
  ]);
  if (row.segmentId && !segment) return cancelUnstartable(deps, row, 'the segment was deleted');
  if (row.topicId && !topic) return cancelUnstartable(deps, row, 'the topic was deleted');
  if (!template) return cancelUnstartable(deps, row, 'the template was deleted');

  const isEmail = row.channelType === 'email';
  const address = Prisma.raw(isEmail ? 'c."email"' : 'c."phone"');
  const subscribed = Prisma.raw(isEmail ? 'c."emailSubscribed"' : 'c."smsSubscribed"');
  const criteria = segment ? compileCriteria(segment.criteria as SegmentCriteria) : Prisma.sql`true`;
  // a topic's non-members are not recipients at all (they chose, or the topic is opt-in); members unsubscribed from
  // the channel are recipients counted `suppressed`, as without a topic
  const inTopic = topic ? inTopicSql(topic) : Prisma.sql`true`;
  const chunkSize = deps.config.broadcasts.chunkSize;
  const at = now.toISOString();
  // Fixing a large audience takes seconds (100,000 contacts under load: more than Prisma's 5 s default for an
  // interactive transaction, which failed the start again and again), hence START_TIMEOUT_MS.
  const result = await deps.db.$transaction(
    async (tx) => {
      const [started] = await tx.$queryRaw<BroadcastRow[]>`
      WITH matching AS MATERIALIZED (
        SELECT c."id", (${subscribed} AND NOT EXISTS (
          SELECT 1 FROM "Suppression" s WHERE s."orgId" = c."orgId" AND s."recipient" = ${address}
            AND (s."mode" = 'live' OR s."mode" = ${row.mode}::"ApiKeyMode"))) AS "isSendable"
        FROM "Contact" c WHERE c."orgId" = ${row.orgId} AND ${address} IS NOT NULL AND ${criteria} AND ${inTopic}),
      started AS (
        UPDATE "Broadcast" SET "status" = 'sending', "startedAt" = ${at}::timestamp, "updatedAt" = ${at}::timestamp,
          "templateVersion" = coalesce("templateVersion", ${template.version}),
          "recipientCount" = (SELECT count(*) FROM matching),
          "suppressedCount" = (SELECT count(*) FROM matching WHERE NOT "isSendable"),
          "chunkCount" = ceil((SELECT count(*) FROM matching WHERE "isSendable")::numeric / ${chunkSize})
        WHERE "id" = ${row.id} AND "startedAt" IS NULL AND "status" IN ('scheduled', 'sending')
        RETURNING *),
      fixed AS (
        INSERT INTO "BroadcastRecipient" ("broadcastId", "position", "contactId")
        SELECT ${row.id}, row_number() OVER (ORDER BY m."id"), m."id" FROM matching m WHERE m."isSendable" AND EXISTS (SELECT 1 FROM started))
      SELECT * FROM started`;
      if (!started) return null;
      const jobs = [...firstChunkJobs(deps.config, row.id, started.chunkCount), finishJob(row.id, new Date(now.getTime() + FINISH_CHECK_EVERY_MS))];
      await tx.$executeRaw(outboxInsert(jobs));
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

/**
 * What differs between the messages of a chunk (writeChunk adds what they share from the broadcast); fields left out
 * are null. Kept this small because a chunk's messages cross to Postgres as one JSON text.
 */
type ChunkMessage = {
  id: string;
  to: string;
  contactId: string;
  subject?: string | null;
  html?: string | null;
  text?: string | null;
  body?: string | null;
  segments?: number;
  errorCode?: string;
  errorMessage?: string;
  /** Held by the broadcast's quiet hours until then (ISO); the message is `scheduled`. */
  scheduledAt?: string;
};

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
    deps.db.templateVersion.findUnique({ where: { templateId_version: { templateId: broadcast.templateId, version: broadcast.templateVersion! } } }),
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

type ChunkMessages = { from: string; tracking: { opens: boolean; clicks: boolean }; messages: ChunkMessage[] };

const messageColumns = columnsOf(Prisma.MessageScalarFieldEnum);

/**
 * Writes one chunk's messages in ONE statement: only while the broadcast is `sending` (a share lock on its row, so
 * a cancel waits for a chunk in flight and then cancels its messages), only if the chunk is not already written
 * (BroadcastChunk), and never a second message for a (broadcast, contact) (the partial unique index). A message
 * with an error is `failed`, the others `queued`. Their status events and `message.queued` / `message.failed`
 * events go with them. Returns the queued message ids, or null when the chunk was written before (or the broadcast
 * is no longer sending). Through pg itself (prepared once per connection), not Prisma: Prisma's raw queries serialize and parse every parameter
 * as JSON once more, which for a chunk's messages (about a megabyte) cost more CPU than the rest of the chunk step.
 */
async function writeChunk(
  deps: Deps,
  broadcast: BroadcastRow,
  chunk: number,
  { from, tracking, messages }: ChunkMessages,
): Promise<{ queuedIds: string[]; deliveryIds: string[]; created: number; failed: number } | null> {
  // message.queued of a broadcast's messages is recorded only when an endpoint of the organization subscribes to
  // it: 100,000 events nobody receives would double the fan-out's writes (broadcast.sending announces them all).
  const eventSource = Prisma.sql`
    SELECT 'evt_' || replace(gen_random_uuid()::text, '-', ''), m."orgId",
           CASE WHEN m."status" = 'queued' THEN 'message.queued' ELSE 'message.failed' END, ${messageJsonSql}, NULL::text
    FROM new_messages m
    WHERE m."status" = 'failed' OR (m."status" = 'queued' AND EXISTS (
      SELECT 1 FROM "Webhook" w WHERE w."orgId" = m."orgId" AND w."enabled" AND 'message.queued' = ANY (w."events")))`;
  const now = deps.now().toISOString();
  const provider = deps.providers.plannedFor(broadcast.mode, broadcast.channelType);
  const statement = Prisma.sql`
    WITH live AS (SELECT "id" FROM "Broadcast" WHERE "id" = ${broadcast.id} AND "status" = 'sending' FOR SHARE),
    chunk_done AS (
      INSERT INTO "BroadcastChunk" ("broadcastId", "chunk", "createdAt") SELECT "id", ${chunk}, now() AT TIME ZONE 'UTC' FROM live
      ON CONFLICT DO NOTHING RETURNING "broadcastId"),
    new_messages AS (
      INSERT INTO "Message" ("id", "orgId", "channelType", "direction", "to", "from", "subject", "html", "text", "body", "templateId",
        "templateVersion", "contactId", "broadcastId", "status", "segments", "provider", "mode", "errorCode", "errorMessage", "tags",
        "scheduledAt", "failedAt", "trackOpens", "trackClicks", "createdAt", "updatedAt")
      -- once per contact: a contact is in one chunk, and a chunk written before has its BroadcastChunk row already
      SELECT m."id", ${broadcast.orgId}, ${broadcast.channelType}::"ChannelType", 'outbound', m."to", ${from}, m."subject", m."html",
        m."text", m."body", ${broadcast.templateId}, ${broadcast.templateVersion}::int, m."contactId", ${broadcast.id},
        (CASE WHEN m."errorCode" IS NOT NULL THEN 'failed' WHEN m."scheduledAt" IS NOT NULL THEN 'scheduled' ELSE 'queued' END)::"MessageStatus",
        m."segments", ${provider}, ${broadcast.mode}::"ApiKeyMode", m."errorCode", m."errorMessage", ${broadcast.tags}::text[], m."scheduledAt",
        CASE WHEN m."errorCode" IS NULL THEN NULL ELSE ${now}::timestamp END, ${tracking.opens}, ${tracking.clicks}, ${now}::timestamp, ${now}::timestamp
      FROM json_to_recordset(${JSON.stringify(messages)}::json) AS m("id" text, "to" text, "contactId" text, "subject" text,
        "html" text, "text" text, "body" text, "segments" int, "errorCode" text, "errorMessage" text, "scheduledAt" timestamp)
      WHERE EXISTS (SELECT 1 FROM chunk_done)
      RETURNING ${messageColumns}),
    status_events AS (
      INSERT INTO "MessageStatusEvent" ("messageId", "status", "errorCode", "errorMessage", "createdAt")
      SELECT "id", "status", "errorCode", "errorMessage", "createdAt" FROM new_messages),
    ${eventsCte(eventSource)}
    SELECT EXISTS (SELECT 1 FROM chunk_done) AS "isNew",
           ARRAY(SELECT "id" FROM new_messages WHERE "status" IN ('queued', 'scheduled')) AS "queuedIds",
           ARRAY(SELECT "id" FROM new_deliveries) AS "deliveryIds",
           (SELECT count(*)::int FROM new_messages) AS "created",
           (SELECT count(*)::int FROM new_messages WHERE "status" = 'failed') AS "failed"`;
  const { rows } = await queryPrepared<{ isNew: boolean; queuedIds: string[]; deliveryIds: string[]; created: number; failed: number }>(deps.db, statement);
  return rows[0]!.isNew ? rows[0]! : null;
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
  const broadcast = await deps.db.broadcast.findUnique({ where: { id: broadcastId } });
  if (broadcast?.status !== 'sending' || !broadcast.startedAt) return { kind: 'done', outcome: broadcast?.status ?? 'missing' };
  const window = await windowOf(deps, broadcast.orgId, broadcastId, chunk);
  if (!window.written && window.full) return { kind: 'not-yet', runAt: new Date(deps.now().getTime() + WINDOW_RECHECK_MS * (1 + Math.random())) };
  const size = deps.config.broadcasts.chunkSize;
  // with a sendRate, a chunk is written shortly before its first message is due: its jobs wait in Redis a minute, not hours
  const firstDue = dueAt(broadcast, chunk * size + 1);
  if (!window.written && firstDue && firstDue.getTime() - deps.now().getTime() > SEND_RATE_LEAD_MS) {
    return { kind: 'not-yet', runAt: new Date(firstDue.getTime() - SEND_RATE_LEAD_MS) };
  }
  const range = Prisma.sql`r."broadcastId" = ${broadcastId} AND r."position" > ${chunk * size} AND r."position" <= ${(chunk + 1) * size}`;
  const contacts = await deps.db.$queryRaw<RecipientContact[]>`
    SELECT c."id", c."email", c."phone", c."firstName", c."lastName", c."attributes", r."position"
    FROM "BroadcastRecipient" r JOIN "Contact" c ON c."id" = r."contactId" WHERE ${range} ORDER BY r."position"`;
  const messages = await messagesFor(deps, broadcast, contacts, options.attempt ?? BROADCAST_RENDER_ATTEMPTS);
  // written even when empty (its contacts deleted since the start): the chunk counts as done either way
  const written = await writeChunk(deps, broadcast, chunk, messages);
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
    const again = await deps.db.$queryRaw<{ id: string; scheduledAt: Date | null }[]>`
      SELECT m."id", m."scheduledAt" FROM "BroadcastRecipient" r
      JOIN "Message" m ON m."broadcastId" = r."broadcastId" AND m."contactId" = r."contactId"
      WHERE ${range} AND m."status" IN ('queued', 'scheduled')`;
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
    const [sent] = await tx.$queryRaw<BroadcastRow[]>`
      UPDATE "Broadcast" b SET "status" = 'sent', "completedAt" = ${at}::timestamp, "updatedAt" = ${at}::timestamp
      WHERE b."id" = ${broadcastId} AND b."status" = 'sending' AND b."startedAt" IS NOT NULL
        AND (SELECT count(*) FROM "BroadcastChunk" k WHERE k."broadcastId" = b."id") >= b."chunkCount"
        AND NOT EXISTS (SELECT 1 FROM "Message" m WHERE m."broadcastId" = b."id" AND m."status" IN ('scheduled', 'queued'))
      RETURNING *`;
    return sent ? { sent, outbox: await recordEvents(tx, [{ orgId: sent.orgId, type: 'broadcast.sent', data: toBroadcast(sent) }]) } : null;
  });
  if (result) {
    await dispatchOutbox(deps, result.outbox);
    deps.logger.info({ broadcastId, orgId: result.sent.orgId }, 'broadcast sent');
    return { kind: 'done', outcome: 'sent' };
  }
  const current = await deps.db.broadcast.findUnique({ where: { id: broadcastId }, select: { status: true, startedAt: true, chunkCount: true } });
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
  const stranded = await deps.db.broadcast.findMany({
    where: {
      OR: [
        { status: 'scheduled', scheduledAt: { lt: cutoff } },
        { status: 'sending', updatedAt: { lt: cutoff } },
      ],
    },
    select: { id: true, status: true },
    take: 500,
  });
  const jobs = stranded.flatMap((b) => [
    { queue: 'broadcasts' as const, jobId: broadcastJobId({ broadcastId: b.id, step: 'start' }) },
    ...(b.status === 'sending' ? [finishJob(b.id, deps.now())] : []),
  ]);
  if (jobs.length > 0) await addJobs(deps, jobs);
  return stranded.length;
}
