import { createTestDeps, makeOrganization } from '@tidings/testing';
import { encryptSecret, generateWebhookSecret } from '@tidings/webhooks';
import { newId, recordEvents, type EventType } from '../src/index.ts';

const deps = createTestDeps({ WEBHOOK_ALLOW_LOOPBACK: 'true' });
afterAll(() => deps.close());

async function endpoint(orgId: string, events: EventType[], extra: { enabled?: boolean } = {}) {
  return deps.db.webhook.create({
    data: {
      id: newId('whk'),
      orgId,
      url: 'http://127.0.0.1:9/hook',
      events,
      enabled: extra.enabled ?? true,
      secretCiphertext: encryptSecret(generateWebhookSecret(), deps.config.webhooks.secretKey),
    },
  });
}

const deliveriesOf = (webhookId: string) => deps.db.webhookDelivery.findMany({ where: { webhookId }, orderBy: { eventType: 'asc' } });

describe('recordEvents fan-out', () => {
  it('one delivery per enabled endpoint subscribed to the type; nothing for others, disabled ones or other orgs', async () => {
    const { orgId } = await makeOrganization(deps);
    const other = await makeOrganization(deps);
    const contacts = await endpoint(orgId, ['contact.created']);
    const both = await endpoint(orgId, ['contact.created', 'message.sent']);
    const unrelated = await endpoint(orgId, ['emailDomain.verified']);
    const disabled = await endpoint(orgId, ['contact.created', 'message.sent'], { enabled: false });
    const foreign = await endpoint(other.orgId, ['contact.created', 'message.sent']);

    const outbox = await deps.db.$transaction((tx) =>
      recordEvents(tx, [
        { orgId, type: 'contact.created', data: { id: 'con_1' } },
        { orgId, type: 'message.sent', data: { id: 'msg_1' } },
        { orgId, type: 'contact.deleted', data: { id: 'con_2' } },
      ]),
    );

    expect((await deliveriesOf(contacts.id)).map((d) => d.eventType)).toEqual(['contact.created']);
    expect((await deliveriesOf(both.id)).map((d) => d.eventType)).toEqual(['contact.created', 'message.sent']);
    expect(await deliveriesOf(unrelated.id)).toHaveLength(0);
    expect(await deliveriesOf(disabled.id)).toHaveLength(0);
    expect(await deliveriesOf(foreign.id)).toHaveLength(0);

    const ids = [...(await deliveriesOf(contacts.id)), ...(await deliveriesOf(both.id))].map((d) => d.id).sort();
    expect(outbox.map((o) => o.jobId).sort()).toEqual(ids);
    expect(outbox.every((o) => o.queue === 'webhooks')).toBe(true);
    expect(await deps.db.outboxEntry.count({ where: { queue: 'webhooks', jobId: { in: ids } } })).toBe(3);
    const delivery = (await deliveriesOf(contacts.id))[0]!;
    expect(delivery).toMatchObject({ status: 'pending', attempts: 0, orgId });
    expect(delivery.id).toMatch(/^dlv_[0-9a-f]{32}$/);
    const event = await deps.db.event.findUniqueOrThrow({ where: { id: delivery.eventId } });
    expect(event).toMatchObject({ orgId, type: 'contact.created', data: { id: 'con_1' } });
    await deps.db.outboxEntry.deleteMany({ where: { jobId: { in: ids } } });
  });

  it('an event aimed at one endpoint (webhook.test) reaches that endpoint only, subscribed or not', async () => {
    const { orgId } = await makeOrganization(deps);
    const target = await endpoint(orgId, ['contact.created']);
    const bystander = await endpoint(orgId, ['webhook.test']);
    const outbox = await deps.db.$transaction((tx) => recordEvents(tx, [{ orgId, type: 'webhook.test', data: {}, webhookId: target.id }]));
    expect(outbox).toHaveLength(1);
    expect((await deliveriesOf(target.id)).map((d) => d.id)).toEqual([outbox[0]!.jobId]);
    expect(await deliveriesOf(bystander.id)).toHaveLength(0);
    await deps.db.outboxEntry.deleteMany({ where: { jobId: outbox[0]!.jobId } });
  });

  it('writes UTC times whatever the session time zone', async () => {
    const { orgId } = await makeOrganization(deps);
    const hook = await endpoint(orgId, ['contact.created']);
    const outbox = await deps.db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe("SET LOCAL TIME ZONE 'Asia/Tokyo'");
      return recordEvents(tx, [{ orgId, type: 'contact.created', data: {} }]);
    });
    const [delivery] = await deliveriesOf(hook.id);
    expect(Math.abs(delivery!.nextAttemptAt!.getTime() - Date.now())).toBeLessThan(60_000);
    expect(Math.abs(delivery!.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
    await deps.db.outboxEntry.deleteMany({ where: { jobId: { in: outbox.map((o) => o.jobId) } } });
  });

  it('no subscribers: events are recorded and nothing is enqueued', async () => {
    const { orgId } = await makeOrganization(deps);
    const outbox = await deps.db.$transaction((tx) => recordEvents(tx, [{ orgId, type: 'contact.updated', data: { id: 'con_9' } }]));
    expect(outbox).toEqual([]);
    expect(await deps.db.event.count({ where: { orgId, type: 'contact.updated' } })).toBe(1);
  });

  it('is set-based: 50 events x 40 endpoints make 2,000 deliveries in one call, rolled back with the transaction', async () => {
    const { orgId } = await makeOrganization(deps);
    await Promise.all(Array.from({ length: 40 }, () => endpoint(orgId, ['message.delivered'])));
    const events = Array.from({ length: 50 }, (_, i) => ({ orgId, type: 'message.delivered' as const, data: { id: `msg_${i}` } }));
    const started = performance.now();
    const outbox = await deps.db.$transaction((tx) => recordEvents(tx, events));
    const elapsedMs = performance.now() - started;
    expect(outbox).toHaveLength(2_000);
    expect(new Set(outbox.map((o) => o.jobId)).size).toBe(2_000);
    expect(await deps.db.webhookDelivery.count({ where: { orgId } })).toBe(2_000);
    expect(elapsedMs).toBeLessThan(5_000);
    await deps.db.outboxEntry.deleteMany({ where: { jobId: { in: outbox.map((o) => o.jobId) } } });

    // a failed change takes its events and deliveries with it
    const before = await deps.db.webhookDelivery.count({ where: { orgId } });
    await expect(
      deps.db.$transaction(async (tx) => {
        await recordEvents(tx, events.slice(0, 1));
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await deps.db.webhookDelivery.count({ where: { orgId } })).toBe(before);
  });
});
