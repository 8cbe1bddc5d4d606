import { RESEND_MESSAGE_TAG } from '@tidings/providers';
import { waitUntil, type Load, type Rig } from './rig.ts';

const NOT_FINAL = ['scheduled', 'queued', 'sending'] as const;

async function statusCounts(rig: Rig): Promise<Record<string, number>> {
  const groups = await rig.deps.db.message.groupBy({ by: ['status'], where: { orgId: rig.org.orgId }, _count: true });
  return Object.fromEntries(groups.map((g) => [g.status, g._count]));
}

/**
 * Waits until every message of the rig's organization has a final status from the send path (`sent` or
 * `failed`: the fake Resend sends no delivery callbacks) and every webhook delivery has finished; fails with the
 * status counts and the processes' last log lines when that takes longer than `timeoutMs`.
 */
export async function waitUntilSettled(rig: Rig, timeoutMs: number): Promise<number> {
  const started = performance.now();
  const { db } = rig.deps;
  const { orgId } = rig.org;
  await waitUntil(
    async () =>
      (await db.message.count({ where: { orgId, status: { in: [...NOT_FINAL] } } })) === 0 &&
      (await db.webhookDelivery.count({ where: { orgId, status: 'pending' } })) === 0,
    timeoutMs,
    async () => {
      const deliveries = await db.webhookDelivery.groupBy({ by: ['status'], where: { orgId }, _count: true });
      return `messages ${JSON.stringify(await statusCounts(rig))}, deliveries ${JSON.stringify(deliveries.map((d) => [d.status, d._count]))}\n${rig.logs()}`;
    },
  );
  return (performance.now() - started) / 1000;
}

/** What a scenario measured, for its report line. */
export type Verdict = {
  statuses: Record<string, number>;
  providerRequests: number;
  emailsAccepted: number;
  webhookRequests: number;
  events: number;
  /** Webhook attempts that did not get a 2xx (refused, timed out, 5xx). */
  failedWebhookAttempts: number;
};

/**
 * The promises of the pipeline, checked from the database and the fakes' records once settled:
 * - every request got exactly one message (the Idempotency-Key retries made no second one), and no other exists;
 * - every message is final (`sent`, or `failed` after its last attempt when `mayFail`), none left `sending`;
 * - the provider accepted each message at most once, counted by our message id (the email's tag) and by its subject,
 *   and exactly once with the stored provider id when `sent`;
 * - every event (`message.queued` and one final event per message) has a delivery, every delivery succeeded, and
 *   the receiver got every event id; nothing is left in the outbox.
 */
export async function expectNothingLostOrDoubled(rig: Rig, load: Load, count: number, options: { mayFail?: boolean } = {}): Promise<Verdict> {
  const { db } = rig.deps;
  const { orgId } = rig.org;
  expect(load.accepted.size).toBe(count);
  const messages = await db.message.findMany({ where: { orgId }, select: { id: true, status: true, subject: true, providerMessageId: true, attempts: true } });
  const bySubject = new Map<string, string[]>();
  for (const m of messages) bySubject.set(m.subject!, [...(bySubject.get(m.subject!) ?? []), m.id]);
  expect([...bySubject].filter(([, ids]) => ids.length > 1)).toEqual([]); // one request, one message
  expect(messages).toHaveLength(count);
  expect(new Set(messages.map((m) => m.id))).toEqual(new Set(load.accepted.values()));

  const statuses = await statusCounts(rig);
  const finalStatuses = options.mayFail ? ['sent', 'failed'] : ['sent'];
  expect(Object.keys(statuses).filter((s) => !finalStatuses.includes(s))).toEqual([]);
  const maxAttempts = Number(rig.env.SEND_MAX_ATTEMPTS);
  for (const m of messages.filter((m) => m.status === 'failed')) expect(m.attempts).toBeGreaterThanOrEqual(maxAttempts);

  const emails = rig.resend.state.emails;
  const tagOf = (e: (typeof emails)[number]) => e.tags?.find((t) => t.name === RESEND_MESSAGE_TAG)?.value;
  const emailsByMessage = new Map<string, typeof emails>();
  for (const email of emails) emailsByMessage.set(tagOf(email) ?? 'untagged', [...(emailsByMessage.get(tagOf(email) ?? 'untagged') ?? []), email]);
  const sentTwice = [...emailsByMessage].filter(([, list]) => list.length > 1).map(([id]) => id);
  expect(sentTwice).toEqual([]);
  expect(new Set(emails.map((e) => e.subject)).size).toBe(emails.length);
  expect(emails.every((e) => e.idempotencyKey === tagOf(e))).toBe(true);
  for (const m of messages.filter((m) => m.status === 'sent')) {
    expect({ id: m.id, providerMessageId: emailsByMessage.get(m.id)?.[0]?.id }).toEqual({ id: m.id, providerMessageId: m.providerMessageId });
  }

  const events = await db.event.findMany({ where: { orgId }, select: { id: true, type: true, data: true } });
  const eventKeys = events.map((e) => `${(e.data as { id: string }).id} ${e.type}`);
  expect(new Set(eventKeys).size).toBe(events.length); // no status reported twice
  expect(events.filter((e) => e.type === 'message.queued')).toHaveLength(count);
  expect(events.filter((e) => e.type !== 'message.queued')).toHaveLength(count);
  const deliveries = await db.webhookDelivery.groupBy({ by: ['status'], where: { orgId }, _count: true });
  expect(deliveries.map((d) => [d.status, d._count])).toEqual([['succeeded', events.length]]);
  const received = new Set(rig.webhookIdsReceived());
  expect(events.filter((e) => !received.has(e.id)).map((e) => e.id)).toEqual([]);

  const deliveryIds = (await db.webhookDelivery.findMany({ where: { orgId }, select: { id: true } })).map((d) => d.id);
  expect(await db.outboxEntry.count({ where: { jobId: { in: [...messages.map((m) => m.id), ...deliveryIds] } } })).toBe(0);

  const failedWebhookAttempts = await db.webhookAttempt.count({
    where: { delivery: { orgId }, OR: [{ statusCode: null }, { statusCode: { gte: 300 } }] },
  });
  return {
    statuses,
    failedWebhookAttempts,
    providerRequests: rig.resend.requests.filter((r) => r.path === '/emails').length,
    emailsAccepted: emails.length,
    webhookRequests: rig.webhookIdsReceived().length,
    events: events.length,
  };
}

/** One line per scenario on stderr: the figures a run is judged by. */
export function report(name: string, count: number, load: Load, settleSeconds: number, verdict: Verdict): void {
  process.stderr.write(
    `[faults] ${name}: ${count} messages accepted in ${load.seconds.toFixed(1)} s (${load.retries} client retries), settled ${settleSeconds.toFixed(1)} s later; ` +
      `statuses ${JSON.stringify(verdict.statuses)}; provider calls ${verdict.providerRequests} for ${verdict.emailsAccepted} emails; ` +
      `${verdict.events} events, ${verdict.webhookRequests} webhook requests, ${verdict.failedWebhookAttempts} failed webhook attempts\n`,
  );
}
