import { createWebhook, newId } from '@tidings/core';
import { broadcastJobId } from '@tidings/queue';
import { startPipeline, waitFor } from './harness.ts';

// Whole broadcasts through real workers on a loaded machine: every wait has its own deadline.
jest.setTimeout(120_000);

let h: Awaited<ReturnType<typeof startPipeline>>;
beforeAll(async () => {
  // chunks of 2 and a window of 3: a second chunk waits while two messages of the organization wait; one chunk of a
  // broadcast released at a time (the chain's width is the fan-out's concurrency)
  h = await startPipeline({ BROADCAST_CHUNK_SIZE: '2', BROADCAST_ORG_WINDOW: '3', BROADCAST_WORKER_CONCURRENCY: '1', WEBHOOK_ALLOW_LOOPBACK: 'true' });
  await h.startWorker();
});
afterAll(() => h.close());

type Org = Awaited<ReturnType<typeof h.testOrg>>;

/** A broadcast by `org` to `count` new contacts of its own, sent; returns its id. */
async function broadcastTo(org: Org, count: number): Promise<string> {
  const ids = Array.from({ length: count }, () => newId('con'));
  await h.deps.db.$executeRaw`
    INSERT INTO "Contact" ("id", "orgId", "email", "firstName", "createdAt", "updatedAt")
    SELECT id, ${org.orgId}, 'c' || n || '@example.com', 'C' || n, now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
    FROM unnest(${ids}::text[]) WITH ORDINALITY AS u(id, n)`;
  const template = (await org.api.post('/v1/templates', { name: 'News', channelType: 'email', subject: 'News', text: 'Hello {{ contact.firstName }}' })).body;
  const broadcast = (await org.api.post('/v1/broadcasts', { name: 'News', channelType: 'email', templateId: template.id })).body;
  expect((await org.api.post(`/v1/broadcasts/${broadcast.id}/send`, {})).status).toBe(202);
  return broadcast.id;
}

const messagesOf = (broadcastId: string) => h.deps.db.message.count({ where: { broadcastId } });
/** How often a chunk job was held back by its organization's window. */
async function waitsOf(broadcastId: string, chunk: number): Promise<number> {
  const data = (await h.deps.queues.broadcasts.getJob(broadcastJobId({ broadcastId, step: 'chunk', chunk })))?.data;
  return data?.step === 'chunk' ? (data.waits ?? 0) : 0;
}
const untilSent = (org: Org, id: string) => waitFor(async () => (await org.api.get(`/v1/broadcasts/${id}`)).body.status === 'sent', 60_000, `broadcast ${id} to be sent`);

describe('lanes', () => {
  it("a single send goes out while a broadcast's messages wait in the bulk lane; the broadcast completes after", async () => {
    const org = await h.testOrg();
    await h.deps.queues['email-bulk'].pause(); // as behind a long backlog of broadcast messages
    try {
      const broadcastId = await broadcastTo(org, 2);
      await waitFor(async () => (await messagesOf(broadcastId)) === 2, 30_000, 'the fan-out');
      const [queued] = await h.deps.db.message.findMany({ where: { broadcastId }, take: 1 });
      // the chunk commits its messages before it adds their jobs (one addBulk, after their turns are taken): the job
      // appears in the bulk lane a moment after its row, and never in the transactional one
      await waitFor(() => h.deps.queues['email-bulk'].getJob(queued!.id), 30_000, "the message's job in the bulk lane");
      expect(await h.deps.queues.email.getJob(queued!.id)).toBeUndefined();
      const single = (await org.api.post('/v1/messages', { channelType: 'email', to: 'reset@example.com', subject: 'Reset', text: 'Your link' })).body;
      await waitFor(async () => (await h.deps.db.message.findUnique({ where: { id: single.id } }))?.sentAt, 30_000, 'the single send');
      expect(await h.deps.db.message.count({ where: { broadcastId, sentAt: { not: null } } })).toBe(0);
      await h.deps.queues['email-bulk'].resume();
      await untilSent(org, broadcastId);
      expect(await h.deps.db.message.count({ where: { broadcastId, sentAt: { not: null } } })).toBe(2);
    } finally {
      await h.deps.queues['email-bulk'].resume();
    }
  });

  it("an organization's broadcast stays within its window while its messages wait; another organization's is not held by it", async () => {
    const a = await h.testOrg();
    const b = await h.testOrg();
    await h.deps.queues['email-bulk'].pause();
    try {
      const large = await broadcastTo(a, 8);
      await waitFor(async () => (await messagesOf(large)) >= 2, 30_000, "the first chunk of A's broadcast");
      // A's next chunk was held back at least twice by the window (two messages wait, two more would make four)
      await waitFor(async () => (await waitsOf(large, 1)) >= 2, 30_000, 'the held-back chunk');
      const small = await broadcastTo(b, 2);
      await waitFor(async () => (await messagesOf(small)) === 2, 30_000, "B's broadcast to be written beside A's");
      expect(await messagesOf(large)).toBe(2);
      await h.deps.queues['email-bulk'].resume();
      await Promise.all([untilSent(a, large), untilSent(b, small)]);
      expect(await h.deps.db.message.count({ where: { broadcastId: large, sentAt: { not: null } } })).toBe(8);
      expect(await h.deps.db.message.count({ where: { broadcastId: small, sentAt: { not: null } } })).toBe(2);
    } finally {
      await h.deps.queues['email-bulk'].resume();
    }
  });

  it("a broadcast's message events are delivered in the bulk webhook lane, a single send's in the transactional one", async () => {
    const org = await h.testOrg();
    // no webhook-worker runs here: the delivery jobs stay where they were added (nothing listens on port 9 anyway)
    const hook = await createWebhook(h.deps, org.orgId, { url: 'http://127.0.0.1:9/hook', events: ['message.queued', 'message.sent'] }, 'test');
    const broadcastId = await broadcastTo(org, 2);
    await untilSent(org, broadcastId);
    const single = (await org.api.post('/v1/messages', { channelType: 'email', to: 'reset@example.com', subject: 'Reset', text: 'Your link' })).body;
    await waitFor(async () => (await h.deps.db.message.findUnique({ where: { id: single.id } }))?.sentAt, 30_000, 'the single send');
    // queued and sent of each of the three messages
    const deliveries = await waitFor(
      async () => {
        const rows = await h.deps.db.webhookDelivery.findMany({ where: { webhookId: hook.id }, select: { id: true, eventId: true } });
        return rows.length === 6 ? rows : null;
      },
      30_000,
      'six deliveries',
    );
    const events = await h.deps.db.event.findMany({ where: { id: { in: deliveries.map((d) => d.eventId!) } }, select: { id: true, type: true, data: true } });
    const lanes = await Promise.all(
      deliveries.map(async (d) => {
        const event = events.find((e) => e.id === d.eventId)!;
        const [bulk, transactional] = await Promise.all([h.deps.queues['webhooks-bulk'].getJob(d.id), h.deps.queues.webhooks.getJob(d.id)]);
        return { type: event.type, messageId: (event.data as { id: string }).id, bulk: Boolean(bulk), transactional: Boolean(transactional) };
      }),
    );
    const expected = (messageId: string, isBulk: boolean) => ['message.queued', 'message.sent'].map((type) => ({ type, messageId, bulk: isBulk, transactional: !isBulk }));
    const broadcastMessages = await h.deps.db.message.findMany({ where: { broadcastId }, select: { id: true } });
    const key = (x: { type: string; messageId: string }) => `${x.messageId} ${x.type}`;
    const sorted = <T extends { type: string; messageId: string }>(list: T[]) => [...list].sort((x, y) => key(x).localeCompare(key(y)));
    expect(sorted(lanes)).toEqual(sorted([...broadcastMessages.flatMap((m) => expected(m.id, true)), ...expected(single.id, false)]));
    // the outbox rows (if the relay ever needs them) name the same queues
    const queueOf = new Map(deliveries.map((d, i) => [d.id, lanes[i]!.bulk ? 'webhooks-bulk' : 'webhooks']));
    const outbox = await h.deps.db.outboxEntry.findMany({ where: { jobId: { in: deliveries.map((d) => d.id) } }, select: { queue: true, jobId: true } });
    expect(outbox.map((row) => row.queue)).toEqual(outbox.map((row) => queueOf.get(row.jobId)));
  });
});
