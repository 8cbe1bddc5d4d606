import path from 'node:path';
import { makeOrganization, freePort, spawnService, waitFor } from '@tidings/testing';
import { RESEND_MESSAGE_TAG } from '@tidings/providers';
import type { Rig } from '../faults/rig.ts';

const root = path.resolve(__dirname, '../..');

/**
 * Two more API processes on the rig's stores with a limit of `limit` a minute: twice as many requests, spread over
 * both at once, get exactly `limit` answers that are not 429 (the count lives in Redis, shared by every replica).
 */
export async function expectRateLimitShared(rig: Rig, limit = 30): Promise<void> {
  const ports = [await freePort(), await freePort()];
  const apis = ports.map((port) =>
    spawnService(path.join(root, 'apps/api/src/server.ts'), rig.deps.config, { ...rig.env, API_PORT: String(port), RATE_LIMIT_PER_MINUTE: String(limit) }),
  );
  try {
    for (const port of ports) await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.ok, 60_000, `the API on ${port}`);
    const { key } = await makeOrganization(rig.deps, { mode: 'live' });
    const statuses = await Promise.all(
      Array.from({ length: limit * 2 }, (_, i) =>
        fetch(`http://127.0.0.1:${ports[i % 2]}/v1/messages?limit=1`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(limit);
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
  } finally {
    for (const api of apis) api.kill('SIGKILL');
  }
}

/** `count` emails scheduled a few seconds ahead through the rig's APIs are each sent once, by one of the workers. */
export async function expectScheduledSentOnce(rig: Rig, count = 20): Promise<void> {
  const at = new Date(Date.now() + 3_000).toISOString();
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${rig.apiUrls[i % rig.apiUrls.length]}/v1/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rig.org.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channelType: 'email', to: `s${i}@example.com`, subject: `scheduled #${i}`, text: 'later', scheduledAt: at }),
    });
    expect(response.status).toBe(202);
    ids.push(((await response.json()) as { id: string }).id);
  }
  const { db } = rig.deps;
  await waitFor(async () => (await db.message.count({ where: { id: { in: ids }, status: 'sent' } })) === count, 60_000, 'the scheduled messages sent');
  const acceptances = rig.resend.state.emails.map((e) => e.tags?.find((t) => t.name === RESEND_MESSAGE_TAG)?.value).filter((id) => id && ids.includes(id));
  expect(acceptances.sort()).toEqual([...ids].sort());
  const sentEvents = await db.messageStatusEvent.count({ where: { messageId: { in: ids }, status: 'sent' } });
  expect(sentEvents).toBe(count);
}

/**
 * The maintenance schedulers tick once per interval however many send-workers run: the outbox relay's finished
 * jobs are one per tick (a scheduler's jobId ends with the tick's time), the ticks `intervalMs` apart, each run once.
 * (When the workers fall behind, a late tick runs right before the next one: so it is the ticks that are compared.)
 */
export async function expectMaintenanceOnce(rig: Rig, intervalMs: number): Promise<void> {
  const relays = async () => (await rig.deps.queues.maintenance.getCompleted(0, 200)).filter((job) => job.name === 'outbox-relay');
  const jobs = await waitFor(async () => ((await relays()).length > 5 ? relays() : null), 30_000, 'a few outbox relay ticks');
  const ticks = jobs.map((job) => Number(job.id!.split(':').pop())).sort((a, b) => a - b);
  const gaps = ticks.slice(1).map((t, i) => t - ticks[i]!);
  expect(Math.min(...gaps)).toBeGreaterThanOrEqual(intervalMs);
  expect(jobs.filter((job) => job.attemptsStarted > 1)).toEqual([]);
}

/** A request repeated with its Idempotency-Key to the other API process is answered with the first one's message. */
export async function expectIdempotencyShared(rig: Rig): Promise<void> {
  const key = `shared-${Date.now()}`;
  const post = (apiUrl: string) =>
    fetch(`${apiUrl}/v1/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rig.org.key}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ channelType: 'email', to: 'idem@example.com', subject: key, text: 'once' }),
    });
  const first = await post(rig.apiUrls[0]!);
  const again = await post(rig.apiUrls[1]!);
  expect([first.status, again.status]).toEqual([202, 202]);
  expect(((await again.json()) as { id: string }).id).toBe(((await first.json()) as { id: string }).id);
  expect(await rig.deps.db.message.count({ where: { orgId: rig.org.orgId, subject: key } })).toBe(1);
}
