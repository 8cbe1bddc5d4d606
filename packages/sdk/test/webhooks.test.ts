import { TidingsError } from '../src/index.ts';
import { startApi } from './setup.ts';

// Loopback targets are allowed here, as in local development; the receiver itself is not needed (no worker runs).
let api: Awaited<ReturnType<typeof startApi>>;
beforeAll(async () => {
  api = await startApi({ WEBHOOK_ALLOW_LOOPBACK: 'true' });
});
afterAll(() => api.close());

describe('tidings.webhooks against the running API', () => {
  it('creates, reads, updates, tests, lists deliveries, rotates and disables an endpoint', async () => {
    const { tidings } = await api.org();
    const created = await tidings.webhooks.create({ url: 'http://127.0.0.1:9/hooks', events: ['message.delivered'], description: 'ops' });
    expect(created.id).toMatch(/^whk_/);
    expect(created.secret).toMatch(/^whsec_/);
    expect(created).toMatchObject({ url: 'http://127.0.0.1:9/hooks', events: ['message.delivered'], enabled: true });

    const updated = await tidings.webhooks.update(created.id, { events: ['message.delivered', 'message.bounced'] });
    expect(updated.events).toEqual(['message.delivered', 'message.bounced']);
    expect((await tidings.webhooks.list().toArray()).map((w) => w.id)).toEqual([created.id]);

    const delivery = await tidings.webhooks.test(created.id);
    expect(delivery.status).toBe('pending');
    const deliveries = [];
    for await (const d of tidings.webhooks.listEvents(created.id)) deliveries.push(d);
    expect(deliveries.map((d) => d.id)).toEqual([delivery.id]);
    expect((await tidings.webhooks.get(created.id)).recentEvents.map((d) => d.id)).toEqual([delivery.id]);

    const rotated = await tidings.webhooks.rotateSecret(created.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);

    const disabled = await tidings.webhooks.delete(created.id);
    expect(disabled.enabled).toBe(false);
  });

  it("another organization's webhook is a typed 404", async () => {
    const owner = await api.org();
    const stranger = await api.org();
    const hook = await owner.tidings.webhooks.create({ url: 'http://127.0.0.1:9/x', events: ['contact.created'] });
    const error = await stranger.tidings.webhooks.get(hook.id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TidingsError);
    expect(error).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect((await owner.tidings.webhooks.get(hook.id)).enabled).toBe(true);
  });
});
