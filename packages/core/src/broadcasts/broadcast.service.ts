import type { OrgContext } from '../request-context.ts';
import type { Broadcast, BroadcastCounts, BroadcastListQuery, BroadcastWithCounts, CreateBroadcastBody, SendBroadcastBody } from '@tidings/contracts';
import type { Broadcast as BroadcastRow } from '@tidings/db';
import { broadcastJobId } from '@tidings/queue';
import { auditedChange, recordAudit } from '../audit/audit-log.ts';
import type { Deps } from '../deps.ts';
import { estimatedFinishAt } from '../pace/estimated-finish.ts';
import { AppError, foundOr404 } from '../errors.ts';
import { recordEvents } from '../events.ts';
import { newId } from '../ids.ts';
import type { KeyMode } from '@tidings/providers';
import { changeMessagesStatuses } from '../messages/message-status.ts';
import { countFailedReasons } from '../messages/message.store.ts';
import { loadSenderResolver } from '../messages/resolve-sender.ts';
import { checkSchedule } from '../messages/send-messages.ts';
import type { OutboxItem } from '../outbox.ts';
import { unitOfWork } from '../unit-of-work.ts';
import { writeOutbox } from '../outbox.store.ts';
import { paginate, type Page } from '../pagination.ts';
import { findSegment } from '../segments/find-segment.ts';
import { findTemplateChannel, findTemplateVersionRow } from '../templates/template.store.ts';
import { findTopic } from '../topics/topic.service.ts';
import { toBroadcast } from './broadcast.mapper.ts';
import {
  cancelBroadcastRow,
  deleteDraftBroadcast,
  findBroadcast,
  findBroadcastStatus,
  insertBroadcast,
  listBroadcastsPage,
  findHeldBroadcastMessagesDue,
  listHeldBroadcastMessageIds,
  sendDraftBroadcast,
  sumBroadcastMessageCounts,
} from './broadcast.store.ts';

/**
 * broadcast.create: a draft. The template (of the broadcast's channel, and the version if named) and the segment
 * and topic must be the organization's (404 otherwise), and `from` must be a sender the organization may use (400).
 * @example await createBroadcast(deps, orgId, 'live', { name: 'News', channelType: 'email', templateId: 'tpl_...', segmentId: 'seg_...' })
 */
export async function createBroadcast(deps: Deps, orgId: string, mode: KeyMode, input: CreateBroadcastBody): Promise<Broadcast> {
  const [template, , , senderOf] = await Promise.all([
    findTemplateChannel(deps.db, orgId, input.templateId),
    input.segmentId ? findSegment(deps, orgId, input.segmentId) : null,
    input.topicId ? findTopic(deps, orgId, input.topicId) : null,
    loadSenderResolver(deps, orgId, mode, [{ channelType: input.channelType, from: input.from }]),
  ]);
  if (!template) throw new AppError('NOT_FOUND', 'Template not found');
  if (template.channelType !== input.channelType) {
    throw new AppError('BAD_REQUEST', `templateId: the template is for ${template.channelType}, not ${input.channelType}`);
  }
  if (input.templateVersion !== undefined) {
    const version = input.templateVersion <= 2_147_483_647 && (await findTemplateVersionRow(deps.db, template.id, input.templateVersion));
    if (!version) throw new AppError('BAD_REQUEST', `templateVersion: the template has no version ${input.templateVersion}`);
  }
  senderOf({ channelType: input.channelType, from: input.from }); // throws 400 for a sender this organization may not use
  const id = newId('brd');
  const row = await auditedChange(deps, { orgId, action: 'broadcast.created', targetId: id }, (tx) =>
    insertBroadcast(tx, {
      id,
      orgId,
      name: input.name,
      channelType: input.channelType,
      templateId: template.id,
      templateVersion: input.templateVersion ?? null,
      segmentId: input.segmentId ?? null,
      topicId: input.topicId ?? null,
      from: input.from ?? null,
      variables: input.variables ?? {},
      tags: input.tags ?? [],
      ...(input.quietHours ? { quietHours: input.quietHours } : {}),
      sendRate: input.sendRate ?? null,
      mode,
    }),
  );
  return toBroadcast(row);
}

// An API key acts only on its own mode's broadcasts (another mode's is not found); the dashboard passes no mode.

/**
 * broadcast.list: newest first, optionally of one status; with `mode` (an API key's) only that mode's.
 * @example await listBroadcasts(deps, orgId, { limit: 20, offset: 0, status: 'sending' })
 */
export async function listBroadcasts({ reads }: Pick<Deps, 'reads'>, orgId: string, query: BroadcastListQuery, mode?: KeyMode): Promise<Page<Broadcast>> {
  return paginate(query, (page) => listBroadcastsPage(reads, orgId, { status: query.status, mode }, page), toBroadcast);
}

/**
 * The counts of broadcast.get, for one or many broadcasts: recipients, suppressed and unsubscribed are kept on the
 * broadcast row, the message counts (opens and clicks too) in BroadcastMessageCount, which triggers on Message keep
 * exact: a read sums a few rows (a status per session shard), whatever the number of messages in flight.
 */
async function countsOf({ db }: Pick<Deps, 'db'>, rows: BroadcastRow[]): Promise<BroadcastCounts[]> {
  if (rows.length === 0) return [];
  const grouped = await sumBroadcastMessageCounts(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => {
    const byStatus = grouped.filter((s) => s.broadcastId === row.id);
    const count = (...statuses: string[]) => byStatus.filter((s) => statuses.includes(s.status)).reduce((sum, s) => sum + s.count, 0);
    return {
      recipients: row.recipientCount,
      waiting: count('scheduled'), // a broadcast's messages are scheduled only by its quiet hours
      queued: count('queued', 'sending'),
      sent: count('sent'),
      delivered: count('delivered'),
      failed: count('failed', 'undelivered'),
      bounced: count('bounced'),
      suppressed: row.suppressedCount,
      unsubscribed: row.unsubscribedCount,
      opened: byStatus.reduce((sum, s) => sum + s.opened, 0),
      clicked: byStatus.reduce((sum, s) => sum + s.clicked, 0),
    };
  });
}

/**
 * broadcast.get: the broadcast with its counts.
 * @example (await getBroadcast(deps, orgId, id)).counts.delivered
 */
export async function getBroadcast(deps: Pick<Deps, 'db' | 'config' | 'now'>, orgId: string, id: string, mode?: KeyMode): Promise<BroadcastWithCounts> {
  const row = foundOr404(await findBroadcast(deps.db, orgId, id, mode), 'Broadcast');
  const [counts] = await countsOf(deps, [row]);
  const [failedReasons] = await failedReasonsOf(deps, orgId, [{ id: row.id, counts: counts! }]);
  return withProgress(deps, row, counts!, failedReasons!);
}

/** The broadcast with its counts, and while it sends, when it should be through at its pace. */
function withProgress(deps: Pick<Deps, 'config' | 'now'>, row: BroadcastRow, counts: BroadcastCounts, failedReasons: Record<string, number>): BroadcastWithCounts {
  const finished = counts.sent + counts.delivered + counts.failed + counts.bounced + counts.suppressed + counts.unsubscribed;
  return { ...toBroadcast(row), counts, failedReasons, estimatedFinishAt: estimatedFinishAt(deps.config, row, counts.recipients - finished, deps.now()) };
}

/**
 * How many messages of each broadcast failed for each reason (`RENDER_FAILED`, `PROVIDER_FAILED`, ...): one query
 * for the broadcasts whose counts show failures, through the organization's (orgId, status) index.
 */
async function failedReasonsOf({ db }: Pick<Deps, 'db'>, orgId: string, rows: { id: string; counts: BroadcastCounts }[]): Promise<Record<string, number>[]> {
  const failing = rows.filter((row) => row.counts.failed > 0).map((row) => row.id);
  const grouped = failing.length ? await countFailedReasons(db, orgId, failing) : [];
  return rows.map((row) => Object.fromEntries(grouped.filter((g) => g.broadcastId === row.id).map((g) => [g.code, g.count])));
}

/**
 * broadcast.list with each broadcast's counts (the dashboard's list shows progress): two queries for the page.
 * @example (await listBroadcastsWithCounts(deps, orgId, { limit: 50, offset: 0 })).data[0]?.counts.sent
 */
export async function listBroadcastsWithCounts(deps: Pick<Deps, 'db' | 'reads' | 'config' | 'now'>, orgId: string, query: BroadcastListQuery): Promise<Page<BroadcastWithCounts>> {
  const page = await paginate(
    query,
    (pageArgs) => listBroadcastsPage(deps.reads, orgId, { status: query.status, mode: undefined }, pageArgs),
    (row) => row,
  );
  const counts = await countsOf(deps, page.data);
  const failedReasons = await failedReasonsOf(
    deps,
    orgId,
    page.data.map((row, index) => ({ id: row.id, counts: counts[index]! })),
  );
  return { ...page, data: page.data.map((row, index) => withProgress(deps, row, counts[index]!, failedReasons[index]!)) };
}

/**
 * NOT_FOUND when the broadcast is not the organization's, else CONFLICT saying, in a whole sentence, which
 * broadcasts `action` applies to and what this one is.
 * @example await refuse(deps, orgId, id, 'Only draft broadcasts can be sent', mode) // CONFLICT 'Only draft broadcasts can be sent; this one is sending.'
 */
async function refuse(deps: Pick<Deps, 'db'>, orgId: string, id: string, rule: string, mode: KeyMode | undefined): Promise<never> {
  const row = foundOr404(await findBroadcastStatus(deps.db, orgId, id, mode), 'Broadcast');
  throw new AppError('CONFLICT', `${rule}; this one is ${row.status}.`);
}

/**
 * broadcast.delete: drafts only (409 otherwise).
 * @example await deleteBroadcast(deps, orgId, id);
 */
export async function deleteBroadcast(deps: Pick<Deps, 'db' | 'actor'>, orgId: string, id: string, mode?: KeyMode): Promise<void> {
  const count = await deps.db.$transaction(async (tx) => {
    const deleted = await deleteDraftBroadcast(tx, orgId, id, mode);
    if (deleted.count > 0) await recordAudit(tx, deps.actor, { orgId, action: 'broadcast.deleted', targetId: id });
    return deleted.count;
  });
  if (count === 0) await refuse(deps, orgId, id, 'Only draft broadcasts can be deleted', mode);
}

/**
 * broadcast.send: a draft becomes `scheduled` (scheduledAt in the future) or `sending`, and its start job is
 * promised in the same transaction (outbox; a scheduled one as a delayed job, like a scheduled message), and the
 * template version it sends is fixed. The start job fixes the recipients in the database and cuts them into fan-out chunks (`startBroadcast`).
 * @example await sendBroadcast({ deps, orgId }, id, { scheduledAt: '2026-12-01T09:00:00Z' }) // status 'scheduled'
 */
export async function sendBroadcast({ deps, orgId, mode }: OrgContext, id: string, input: SendBroadcastBody): Promise<Broadcast> {
  const now = deps.now();
  // an unknown broadcast is 404 whatever the body says (another organization's id learns nothing from a 400)
  if (input.scheduledAt) foundOr404(await findBroadcastStatus(deps.db, orgId, id, mode), 'Broadcast');
  const scheduledAt = checkSchedule(input, now);
  const isScheduled = scheduledAt !== null && scheduledAt > now;
  const start: OutboxItem = { queue: 'broadcasts', jobId: broadcastJobId({ broadcastId: id, step: 'start' }), runAt: isScheduled ? scheduledAt : null };
  const row = await unitOfWork(deps, async (tx, outbox) => {
    const updated = await sendDraftBroadcast(tx, orgId, id, { mode, scheduledAt: isScheduled ? scheduledAt : null, now });
    if (updated) {
      await writeOutbox(tx, [start]);
      outbox.add([start]);
      await recordAudit(tx, deps.actor, { orgId, action: 'broadcast.sent', targetId: id });
    }
    return updated;
  });
  if (!row) return refuse(deps, orgId, id, 'Only draft broadcasts can be sent', mode);
  return toBroadcast(row);
}

/**
 * broadcast.cancel: while `scheduled` or `sending` (409 otherwise). Nothing more is fanned out, and every message of
 * the broadcast that has not reached a provider is canceled when its job runs (the send-worker checks the
 * broadcast before each provider call), so the cancel holds even for jobs already queued.
 * @example await cancelBroadcast(deps, orgId, id) // status 'canceled'
 */
/**
 * When a broadcast's messages held by quiet hours go out: the first and the last of them (UTC), or null when none is
 * held, for the broadcast page to say so.
 * @example await heldMessagesDue(deps, orgId, 'brd_...') // { first: '2026-12-07T08:00:00.000Z', last: '2026-12-07T11:00:00.000Z' }
 */
export async function heldMessagesDue({ db }: Pick<Deps, 'db'>, orgId: string, broadcastId: string): Promise<{ first: string; last: string } | null> {
  const { first, last } = await findHeldBroadcastMessagesDue(db, orgId, broadcastId);
  return first && last ? { first: first.toISOString(), last: last.toISOString() } : null;
}

/** A canceled broadcast's messages held by quiet hours are canceled too, a statement per HELD_CANCEL_BATCH of them. */
async function cancelHeldMessages(deps: Deps, orgId: string, broadcastId: string): Promise<void> {
  for (;;) {
    const ids = await listHeldBroadcastMessageIds(deps.db, orgId, broadcastId, HELD_CANCEL_BATCH);
    if (ids.length === 0) return;
    await unitOfWork(
      deps,
      async (db, outbox) => {
        const [moved] = await changeMessagesStatuses(db, [{ changes: ids.map((messageId) => ({ messageId })), change: { status: 'canceled', at: deps.now() } }]);
        for (const m of moved!.values()) outbox.add(m.outbox);
      },
      { transaction: false },
    );
    if (ids.length < HELD_CANCEL_BATCH) return;
  }
}
const HELD_CANCEL_BATCH = 1000;

export async function cancelBroadcast(deps: Deps, orgId: string, id: string, mode?: KeyMode): Promise<Broadcast> {
  const now = deps.now();
  const broadcast = await unitOfWork(deps, async (tx, outbox) => {
    const row = await cancelBroadcastRow(tx, orgId, id, { mode, now });
    if (!row) return null;
    await recordAudit(tx, deps.actor, { orgId, action: 'broadcast.canceled', targetId: id });
    const broadcast = toBroadcast(row);
    outbox.add(await recordEvents(tx, [{ orgId, type: 'broadcast.canceled', data: broadcast }]));
    return broadcast;
  });
  if (!broadcast) return refuse(deps, orgId, id, 'Only scheduled or sending broadcasts can be canceled', mode);
  await cancelHeldMessages(deps, orgId, id);
  // Tidying only: a start job that still runs finds the broadcast canceled and does nothing.
  await deps.queues.broadcasts.remove(broadcastJobId({ broadcastId: id, step: 'start' })).catch(() => 0);
  return broadcast;
}
