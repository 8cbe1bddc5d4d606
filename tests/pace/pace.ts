import { newId } from '@tidings/core';
import { makeOrganization, waitFor } from '@tidings/testing';
import { call, startRig, waitUntil, type Rig, type RigOptions } from '../faults/rig.ts';

export { call } from '../faults/rig.ts';

/** Messages per scenario (PACE_MESSAGES; the issue's 2,000 by default, CI runs a small one). */
export const MESSAGES = Number(process.env.PACE_MESSAGES || 2000);
/** The fake Resend's limit, requests per second, and what Tidings is told it is. */
export const RESEND_RATE = 5;
/** Emails per call of Resend's batch endpoint. */
export const RESEND_BATCH = 100;

/** The fault suite's rig (the whole product as processes) with Resend limited to RESEND_RATE requests a second. */
export async function startPaceRig(options: RigOptions = {}): Promise<Rig> {
  const rig = await startRig({ sendWorkers: 1, ...options, env: { DATABASE_POOL_SIZE: '10', RESEND_RATE_PER_SECOND: String(RESEND_RATE), ...options.env } });
  rig.resend.state.limit.ratePerSecond = RESEND_RATE;
  return rig;
}

/** A live organization with a verified domain and `contacts` contacts: the sender of one broadcast. */
export async function liveOrgWithContacts(rig: Rig, contacts: number): Promise<{ orgId: string; key: string }> {
  const org = await makeOrganization(rig.deps, { mode: 'live' });
  await rig.deps.db.emailDomain.create({
    data: { id: newId('dom'), orgId: org.orgId, name: 'acme.test', status: 'verified', provider: 'resend', records: [], defaultFromAddress: 'hello@acme.test' },
  });
  const ids = Array.from({ length: contacts }, () => newId('con'));
  await rig.deps.db.$executeRaw`
    INSERT INTO "Contact" ("id", "orgId", "email", "firstName", "createdAt", "updatedAt")
    SELECT id, ${org.orgId}, 'c' || n || '@' || lower(id) || '.example.com', 'C' || n, now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
    FROM unnest(${ids}::text[]) WITH ORDINALITY AS u(id, n)`;
  return org;
}

/** What a finished broadcast came to: its messages sent and failed, and the seconds its fan-out and its sending took. */
export type BroadcastRun = { id: string; sent: number; failed: number; fanOutSeconds: number; seconds: number; firstSentAt: number; lastSentAt: number; sentEarly: boolean };

/**
 * Starts a broadcast of `org` to all its contacts and waits until every message is sent or failed. `sentEarly`: the
 * broadcast said `sent` while one of its messages was still on its way.
 */
export async function runBroadcast(rig: Rig, org: { orgId: string; key: string }, recipients: number, onSending?: () => Promise<void>): Promise<BroadcastRun> {
  const template = await call(rig, org.key, 'POST', '/templates', { name: 'News', channelType: 'email', subject: 'News for {{ contact.firstName }}', text: 'Hello' });
  const broadcast = await call(rig, org.key, 'POST', '/broadcasts', { name: 'Paced', channelType: 'email', templateId: template.id });
  const startedAt = Date.now();
  await call(rig, org.key, 'POST', `/broadcasts/${broadcast.id}/send`, {});
  const db = rig.deps.db;
  let fanOutAt = 0;
  let sentEarly = false;
  const during = onSending ? waitFor(() => db.message.count({ where: { broadcastId: broadcast.id, sentAt: { not: null } } }), 600_000).then(onSending) : null;
  await waitUntil(
    async () => {
      const [created, finished, status] = await Promise.all([
        db.message.count({ where: { broadcastId: broadcast.id } }),
        db.message.count({ where: { broadcastId: broadcast.id, status: { notIn: ['scheduled', 'queued', 'sending'] } } }),
        db.broadcast.findUniqueOrThrow({ where: { id: broadcast.id }, select: { status: true } }),
      ]);
      if (!fanOutAt && created >= recipients) fanOutAt = Date.now();
      if (status.status === 'sent' && finished < recipients) sentEarly = true;
      return finished >= recipients;
    },
    600_000,
    async () => `broadcast ${broadcast.id} to finish: ${JSON.stringify((await call(rig, org.key, 'GET', `/broadcasts/${broadcast.id}`)).counts)}\n${rig.logs()}`,
  );
  const seconds = (Date.now() - startedAt) / 1000;
  await during;
  const [sent, failed, span] = await Promise.all([
    db.message.count({ where: { broadcastId: broadcast.id, sentAt: { not: null } } }),
    db.message.count({ where: { broadcastId: broadcast.id, status: 'failed' } }),
    db.message.aggregate({ where: { broadcastId: broadcast.id }, _min: { sentAt: true }, _max: { sentAt: true } }),
  ]);
  return {
    id: broadcast.id,
    sent,
    failed,
    fanOutSeconds: (fanOutAt - startedAt) / 1000,
    seconds,
    firstSentAt: span._min.sentAt!.getTime(),
    lastSentAt: span._max.sentAt!.getTime(),
    sentEarly,
  };
}

/** The fake Resend's view: calls that got past its limit, calls answered 429, and emails accepted per message id. */
export function resendCounts(rig: Rig) {
  const { counts, emails } = rig.resend.state;
  const perMessage = new Map<string, number>();
  for (const email of emails) {
    const id = email.tags?.find((t) => t.name === 'tidings_message_id')?.value ?? email.id;
    perMessage.set(id, (perMessage.get(id) ?? 0) + 1);
  }
  return { ...counts, emails: emails.length, duplicates: [...perMessage.values()].filter((n) => n > 1).length };
}

/** The 99th percentile (nearest rank). */
export function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;
}
