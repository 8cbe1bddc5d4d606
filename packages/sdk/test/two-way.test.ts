import { startApi, caught } from './setup.ts';

// No workers run: what is asserted is what the API answers and stores.
let api: Awaited<ReturnType<typeof startApi>>;
beforeAll(async () => {
  api = await startApi({ WEBHOOK_ALLOW_LOOPBACK: 'true' });
});
afterAll(() => api.close());

describe('two-way through the SDK', () => {
  it('sandbox.inbound, message.list by direction and the suppression list', async () => {
    const { tidings } = await api.org({}, { mode: 'test' });
    const inbound = await tidings.sandbox.inbound({ channelType: 'sms', from: '+14155550123', to: '+15005550006', body: 'STOP' });
    expect(inbound).toMatchObject({ direction: 'inbound', status: 'received' });
    expect((await tidings.messages.list({ direction: 'inbound' }).toArray()).map((m) => m.id)).toEqual([inbound.id]);

    const [stopped] = await tidings.suppressions.list({ reason: 'stopped' }).toArray();
    expect(stopped).toMatchObject({ address: '+14155550123', channelType: 'sms' });
    const manual = await tidings.suppressions.create({ channelType: 'email', address: 'ada@example.com' });
    expect((await caught(tidings.suppressions.create({ channelType: 'email', address: 'ADA@example.com' }))).code).toBe('CONFLICT');
    await tidings.suppressions.delete(manual.id);
    await tidings.suppressions.delete(stopped!.id);
    expect(await tidings.suppressions.list().toArray()).toEqual([]);
    expect((await caught(tidings.suppressions.delete(stopped!.id))).code).toBe('NOT_FOUND');
  });

  it('webhook.getEvent, retryEvent and replay', async () => {
    const { tidings } = await api.org();
    const webhook = await tidings.webhooks.create({ url: 'http://127.0.0.1:9/hooks', events: ['contact.created'] });
    const delivery = await tidings.webhooks.test(webhook.id);
    const detail = await tidings.webhooks.getEvent(webhook.id, delivery.id);
    expect(detail).toMatchObject({ id: delivery.id, attemptLog: [], payload: { id: delivery.eventId, type: 'webhook.test' } });
    expect((await tidings.webhooks.retryEvent(webhook.id, delivery.id)).status).toBe('pending');
    expect(await tidings.webhooks.replay(webhook.id, { since: new Date(Date.now() - 60_000).toISOString() })).toEqual({ count: 1 });
    const stranger = await api.org();
    expect((await caught(stranger.tidings.webhooks.getEvent(webhook.id, delivery.id))).code).toBe('NOT_FOUND');
  });
});
