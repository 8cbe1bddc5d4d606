import { newId } from '@tidings/core';
import { setupApi } from './setup.ts';

const t = setupApi({ WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_ENDPOINTS_PER_ORG: '3', WEBHOOK_REPLAY_MAX: '3' });
afterAll(() => t.close());

const hook = { url: 'http://127.0.0.1:9/hook', events: ['message.sent'] };

/** Deliveries of `webhookId` that succeeded, created `secondsAgo` each, without going through a worker. */
async function pastDeliveries(orgId: string, webhookId: string, secondsAgo: number[]): Promise<string[]> {
  const rows = secondsAgo.map((s) => {
    const at = new Date(Date.now() - s * 1000);
    return { id: newId('dlv'), orgId, webhookId, eventId: newId('evt'), eventType: 'message.sent', status: 'succeeded' as const, attempts: 1, createdAt: at, completedAt: at };
  });
  await t.deps.db.webhookDelivery.createMany({ data: rows });
  return rows.map((r) => r.id);
}

describe('webhook limits', () => {
  it('an organization has at most WEBHOOK_ENDPOINTS_PER_ORG enabled endpoints: one more is 409 with a sentence, and others are not affected', async () => {
    const { api, orgId } = await t.org();
    const created = [];
    for (let i = 0; i < 3; i++) created.push(await api.post('/v1/webhooks', hook));
    expect(created.map((r) => r.status)).toEqual([201, 201, 201]);
    const over = await api.post('/v1/webhooks', hook);
    expect(over.status).toBe(409);
    expect(over.body).toEqual({ code: 'CONFLICT', message: expect.stringMatching(/^This organization already has 3 enabled webhook endpoints, .*\.$/) });
    expect(await t.deps.db.webhook.count({ where: { orgId } })).toBe(3);
    // another organization has its own count
    expect((await (await t.org()).api.post('/v1/webhooks', hook)).status).toBe(201);
    // deleting (disabling) one makes room; enabling it again past the limit is refused the same way
    const first = created[0]!.body.id;
    expect((await api.delete(`/v1/webhooks/${first}`)).status).toBe(200);
    expect((await api.post('/v1/webhooks', hook)).status).toBe(201);
    const enable = await api.patch(`/v1/webhooks/${first}`, { enabled: true });
    expect(enable.status).toBe(409);
    expect((await t.deps.db.webhook.findUniqueOrThrow({ where: { id: first } })).enabled).toBe(false);
  });

  it('a replay goes to the bulk lane; a range of more than WEBHOOK_REPLAY_MAX deliveries is 400 and replays nothing', async () => {
    const { api, orgId } = await t.org();
    const webhook = (await api.post('/v1/webhooks', hook)).body;
    const ids = await pastDeliveries(orgId, webhook.id, [90, 80, 70, 60]);
    const since = (s: number) => new Date(Date.now() - s * 1000).toISOString();

    const wide = await api.post(`/v1/webhooks/${webhook.id}/replay`, { since: since(120) });
    expect(wide.status).toBe(400);
    expect(wide.body).toEqual({ code: 'BAD_REQUEST', message: expect.stringMatching(/^since: the range holds more than 3 deliveries, .*\.$/) });
    expect(await t.deps.db.webhookDelivery.count({ where: { id: { in: ids }, status: 'succeeded' } })).toBe(4);
    expect(await t.deps.db.outboxEntry.count({ where: { jobId: { in: ids.map((id) => `${id}.redeliver-1`) } } })).toBe(0);

    const narrow = await api.post(`/v1/webhooks/${webhook.id}/replay`, { since: since(85) });
    expect(narrow).toMatchObject({ status: 202, body: { count: 3 } });
    const replayed = ids.slice(1).map((id) => `${id}.redeliver-1`);
    for (const jobId of replayed) {
      expect([Boolean(await t.deps.queues['webhooks-bulk'].getJob(jobId)), Boolean(await t.deps.queues.webhooks.getJob(jobId))]).toEqual([true, false]);
    }
    expect(await t.deps.db.webhookDelivery.count({ where: { id: { in: ids }, status: 'pending' } })).toBe(3);
  });
});
