import { createTestDeps, makeOrganization } from '@tidings/testing';
import { createWebhook, recordEvents, relayOutbox, sendMessages, unitOfWork, type OutboxItem, type UnitOfWorkDeps } from '../src/index.ts';
import { writeOutbox } from '../src/outbox.store.ts';

/** Adds jobs whose rows were written before, as a unit of work does after its commit. */
const dispatch = (deps: UnitOfWorkDeps, items: OutboxItem[]) => unitOfWork(deps, async (_db, outbox) => outbox.add(items), { transaction: false });

const deps = createTestDeps({ WEBHOOK_ALLOW_LOOPBACK: 'true' });
afterAll(() => deps.close());
beforeEach(() => deps.queues.email.obliterate({ force: true }));

const email = (i: number) => ({ channelType: 'email', to: `r${i}@example.com`, subject: 'Hi', text: 'Hello' });

/** The ids of the `email` queue's waiting jobs in the order a worker takes them (BullMQ: lowest priority first). */
async function servingOrder(): Promise<string[]> {
  // a job without priority is taken before every prioritized one, oldest first
  const waiting = (await deps.queues.email.getJobs(['wait'], 0, -1, true)).map((job) => job.id!);
  const prioritized = (await deps.queues.email.getPrioritized(0, -1)).map((job) => job.id!);
  return [...waiting, ...prioritized];
}

describe('turns between organizations in the transactional lane', () => {
  it("a single send of B is served after A's first, not after A's whole sendBatch burst", async () => {
    const a = await makeOrganization(deps);
    const b = await makeOrganization(deps);
    const burst = await Promise.all(
      Array.from({ length: 3 }, (_, n) =>
        sendMessages(
          { deps, orgId: a.orgId, mode: 'test' },
          Array.from({ length: 40 }, (_, i) => email(n * 40 + i)),
        ),
      ),
    );
    const [single] = (await sendMessages({ deps, orgId: b.orgId, mode: 'test' }, [email(0)])).data;
    const order = await servingOrder();
    expect(order).toHaveLength(121);
    // first in, first out, B's would be the 121st; in turns it comes second
    expect(order.indexOf(single!.id)).toBe(1);
    // and each of A's batches keeps its order
    for (const { data } of burst) {
      const places = data.map((m) => order.indexOf(m!.id));
      expect(places).toEqual([...places].sort((x, y) => x - y));
    }
  });

  it('the outbox relay adds the jobs it finds with their organizations turns, as the request does', async () => {
    const a = await makeOrganization(deps);
    const b = await makeOrganization(deps);
    const ofA = (
      await sendMessages(
        { deps, orgId: a.orgId, mode: 'test' },
        Array.from({ length: 30 }, (_, i) => email(i)),
      )
    ).data.map((m) => m!.id);
    const ofB = (await sendMessages({ deps, orgId: b.orgId, mode: 'test' }, [email(0)])).data.map((m) => m!.id);
    // Redis lost the jobs after commit; their outbox rows are still there, A's written first
    await deps.batchers.outboxDeletes.flush();
    await deps.queues.email.obliterate({ force: true });
    await deps.db.$transaction((tx) =>
      writeOutbox(
        tx,
        [...ofA, ...ofB].map((jobId) => ({ queue: 'email' as const, jobId })),
      ),
    );
    expect(await relayOutbox(deps, { graceMs: 0 })).toBeGreaterThanOrEqual(31);
    const order = await servingOrder();
    expect(order).toHaveLength(31);
    expect(order.indexOf(ofB[0]!)).toBeLessThanOrEqual(1);
  });
});

describe('turns between organizations in the webhook lane', () => {
  beforeEach(() => deps.queues.webhooks.obliterate({ force: true }));

  it("B's delivery is served after A's first, not after A's whole burst of events", async () => {
    const a = await makeOrganization(deps);
    const b = await makeOrganization(deps);
    for (const { orgId } of [a, b]) await createWebhook(deps, orgId, { url: 'http://127.0.0.1:9/hook', events: ['contact.created'] });
    const event = (orgId: string, n: number) => ({ orgId, type: 'contact.created' as const, data: { id: `con_${n}` } });
    const ofA = await deps.db.$transaction((tx) =>
      recordEvents(
        tx,
        Array.from({ length: 50 }, (_, n) => event(a.orgId, n)),
      ),
    );
    await dispatch(deps, ofA);
    const [ofB] = await deps.db.$transaction((tx) => recordEvents(tx, [event(b.orgId, 0)]));
    await dispatch(deps, [ofB!]);
    const prioritized = (await deps.queues.webhooks.getPrioritized(0, -1)).map((job) => job.id);
    expect(prioritized).toHaveLength(51);
    expect(prioritized.indexOf(ofB!.jobId)).toBe(1);
  });
});
