import { RESEND_MESSAGE_TAG, SMTP_MESSAGE_ID_HEADER } from '@tidings/providers';
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
      (await db.message.count({ where: { orgId, status: { in: [...NOT_FINAL] } } })) === 0 && (await db.webhookDelivery.count({ where: { orgId, status: 'pending' } })) === 0,
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
  /** Messages each provider accepted, repeats included. */
  acceptedBy: Record<string, number>;
  /** Per provider: acceptances beyond a message's first (the provider could not tell it was the same send). */
  repeats: Record<string, number>;
  /** Per provider without idempotency keys: calls whose answer was lost (the claim in the history stayed unanswered). */
  unansweredClaims: Record<string, number>;
};

type Acceptance = { provider: string; messageId: string | undefined; providerMessageId: string };

/** What every fake provider accepted, by our message id (Resend's tag, SMTP's header, the unique SMS text). */
function acceptances(rig: Rig, messageIdOfText: Map<string, string>): Acceptance[] {
  const tagOf = (e: (typeof rig.resend.state.emails)[number]) => e.tags?.find((t) => t.name === RESEND_MESSAGE_TAG)?.value;
  return [
    ...rig.resend.state.emails.map((e) => ({ provider: 'resend', messageId: tagOf(e), providerMessageId: e.id })),
    ...rig.smtp.received.map((m) => ({
      provider: 'smtp',
      messageId: m.parsed.headers.get(SMTP_MESSAGE_ID_HEADER.toLowerCase()) as string | undefined,
      providerMessageId: m.messageId ?? '',
    })),
    ...rig.telnyx.state.messages.map((m) => ({ provider: 'telnyx', messageId: messageIdOfText.get(m.text), providerMessageId: m.id })),
    ...rig.twilio.state.messages.map((m) => ({ provider: 'twilio', messageId: messageIdOfText.get(m.body), providerMessageId: m.sid })),
  ];
}

/** Claims (a `sending` entry naming a provider, without an error) that no error entry or `sent` by that provider answered. */
async function countUnansweredClaims(rig: Rig): Promise<Record<string, number>> {
  const rows = await rig.deps.db.$queryRaw<{ provider: string; unanswered: bigint }[]>`
    SELECT "provider", sum("unanswered")::bigint AS "unanswered" FROM (
      SELECT e."provider",
             greatest(0, count(*) FILTER (WHERE e."status" = 'sending' AND e."errorCode" IS NULL)
               - count(*) FILTER (WHERE e."status" = 'sending' AND e."errorCode" IS NOT NULL)
               - count(*) FILTER (WHERE e."status" IN ('sent', 'failed'))) AS "unanswered"
      FROM "MessageStatusEvent" e JOIN "Message" m ON m."id" = e."messageId"
      WHERE m."orgId" = ${rig.org.orgId} AND e."provider" IN ('smtp', 'ses', 'telnyx', 'twilio')
      GROUP BY e."messageId", e."provider") per_message
    GROUP BY "provider"`;
  return Object.fromEntries(rows.map((r) => [r.provider, Number(r.unanswered)]));
}

/**
 * The promises of the pipeline, checked from the database and the fakes' records once settled:
 * - every request got exactly one message (the Idempotency-Key retries made no second one), and no other exists;
 * - every message is final (`sent`, or `failed` after its last attempt when `mayFail`), none left `sending`;
 * - the providers together accepted each message exactly once when `sent` (by our message id: Resend's tag, the SMTP
 *   header, the SMS text), the provider the message records with the stored provider id; Resend, which takes our id
 *   as idempotency key, never twice. Only with `mayRepeat` may a provider without keys have accepted a message again,
 *   and then no more often than the history shows calls whose answer was lost (unanswered claims);
 * - every event (`message.queued` and one final event per message) has a delivery, every delivery succeeded, and
 *   the receiver got every event id; nothing is left in the outbox.
 */
export async function expectNothingLostOrDoubled(rig: Rig, load: Load, count: number, options: { mayFail?: boolean; mayRepeat?: boolean } = {}): Promise<Verdict> {
  const { db } = rig.deps;
  const { orgId } = rig.org;
  expect(load.accepted.size).toBe(count);
  const messages = await db.message.findMany({
    where: { orgId },
    select: { id: true, status: true, subject: true, body: true, provider: true, providerMessageId: true, attempts: true },
  });
  const byText = new Map<string, string[]>(); // the subject of an email, the body of an SMS: unique per request
  for (const m of messages) byText.set((m.subject ?? m.body)!, [...(byText.get((m.subject ?? m.body)!) ?? []), m.id]);
  expect([...byText].filter(([, ids]) => ids.length > 1)).toEqual([]); // one request, one message
  expect(messages).toHaveLength(count);
  expect(new Set(messages.map((m) => m.id))).toEqual(new Set(load.accepted.values()));

  const statuses = await statusCounts(rig);
  const finalStatuses = options.mayFail ? ['sent', 'failed'] : ['sent'];
  expect(Object.keys(statuses).filter((s) => !finalStatuses.includes(s))).toEqual([]);
  const maxAttempts = Number(rig.env.SEND_MAX_ATTEMPTS);
  for (const m of messages.filter((m) => m.status === 'failed')) expect(m.attempts).toBeGreaterThanOrEqual(maxAttempts);

  const emails = rig.resend.state.emails;
  const tagOf = (e: (typeof emails)[number]) => e.tags?.find((t) => t.name === RESEND_MESSAGE_TAG)?.value;
  expect(emails.every((e) => e.idempotencyKey === tagOf(e))).toBe(true);
  const accepted = acceptances(rig, new Map(messages.flatMap((m) => (m.body ? [[m.body, m.id] as const] : []))));
  expect(accepted.filter((a) => !a.messageId).map((a) => a.provider)).toEqual([]); // every acceptance is one of our messages
  const acceptancesOf = new Map<string, Acceptance[]>();
  for (const a of accepted) acceptancesOf.set(a.messageId!, [...(acceptancesOf.get(a.messageId!) ?? []), a]);
  const repeats: Record<string, number> = {};
  for (const list of acceptancesOf.values()) for (const again of list.slice(1)) repeats[again.provider] = (repeats[again.provider] ?? 0) + 1;
  const unansweredClaims = await countUnansweredClaims(rig);
  expect(repeats.resend ?? 0).toBe(0); // the idempotency key holds
  if (options.mayRepeat) {
    // a repeat may land at another provider than the lost call (failover on the retry), so the totals are compared
    const total = (counts: Record<string, number>) => Object.values(counts).reduce((sum, n) => sum + n, 0);
    expect(total(repeats)).toBeLessThanOrEqual(total(unansweredClaims));
  } else {
    expect(repeats).toEqual({});
  }
  for (const m of messages.filter((m) => m.status === 'sent')) {
    const atProvider = (acceptancesOf.get(m.id) ?? []).filter((a) => a.provider === m.provider).map((a) => a.providerMessageId);
    expect({ id: m.id, accepted: atProvider.includes(m.providerMessageId!) }).toEqual({ id: m.id, accepted: true });
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
    acceptedBy: Object.fromEntries(['resend', 'smtp', 'telnyx', 'twilio'].map((p) => [p, accepted.filter((a) => a.provider === p).length]).filter(([, n]) => n)),
    repeats,
    unansweredClaims,
    webhookRequests: rig.webhookIdsReceived().length,
    events: events.length,
  };
}

/** One line per scenario on stderr: the figures a run is judged by. */
export function report(name: string, count: number, load: Load, settleSeconds: number, verdict: Verdict): void {
  process.stderr.write(
    `[faults] ${name}: ${count} messages accepted in ${load.seconds.toFixed(1)} s (${load.retries} client retries), settled ${settleSeconds.toFixed(1)} s later; ` +
      `statuses ${JSON.stringify(verdict.statuses)}; Resend calls ${verdict.providerRequests} for ${verdict.emailsAccepted} emails; ` +
      `accepted by provider ${JSON.stringify(verdict.acceptedBy)}, repeats ${JSON.stringify(verdict.repeats)}, unanswered claims ${JSON.stringify(verdict.unansweredClaims)}; ` +
      `${verdict.events} events, ${verdict.webhookRequests} webhook requests, ${verdict.failedWebhookAttempts} failed webhook attempts\n`,
  );
}
