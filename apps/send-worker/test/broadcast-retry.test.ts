import { apiClient } from '@tidings/testing';
import { startPipeline, waitFor } from './harness.ts';

// A whole broadcast through real workers: generous under a loaded machine; every wait has its own deadline.
jest.setTimeout(180_000);

let h: Awaited<ReturnType<typeof startPipeline>>;
beforeAll(async () => {
  h = await startPipeline({ BROADCAST_CHUNK_SIZE: '2', PUBLIC_API_URL: 'https://api.tidings.test' });
  await h.startWorker();
});
afterAll(() => h.close());

type Api = Awaited<ReturnType<typeof h.testOrg>>['api'];

const template = { name: 'News', channelType: 'email', subject: 'Hi {{ contact.firstName }}', html: '<p>{{ contact.firstName }} in {{ contact.attributes.city }}</p>' };

const untilBroadcast = (api: Api, id: string, done: (b: { status: string; counts: Record<string, number> }) => boolean, what: string) =>
  waitFor(
    async () => {
      const b = (await api.get(`/v1/broadcasts/${id}`)).body;
      return done(b) ? b : null;
    },
    90_000,
    what,
  );

/** A sent broadcast to three contacts, one of whom (Fay, no city) failed to render. */
async function sentWithOneRenderFailure(api: Api) {
  const created = await api.post('/v1/contacts/bulk', {
    contacts: [
      { email: 'ada@example.com', firstName: 'Ada', attributes: { city: 'Paris' } },
      { email: 'fay@example.com', firstName: 'Fay' },
      { email: 'gus@example.com', firstName: 'Gus', attributes: { city: 'Nice' } },
    ],
  });
  const ids = Object.fromEntries(created.body.created.map((c: { id: string; firstName: string }) => [c.firstName.toLowerCase(), c.id])) as Record<string, string>;
  const tpl = (await api.post('/v1/templates', template)).body;
  const broadcast = (await api.post('/v1/broadcasts', { name: 'November', channelType: 'email', templateId: tpl.id })).body;
  await api.post(`/v1/broadcasts/${broadcast.id}/send`, {});
  const sent = await untilBroadcast(api, broadcast.id, (b) => b.status === 'sent' && b.counts.sent + b.counts.delivered === 2, 'the first send');
  return { ids, broadcast: sent as unknown as { id: string; status: string; failedReasons: Record<string, number>; counts: Record<string, number> } };
}

describe('broadcast.retryFailed and failedReasons', () => {
  it('a message that failed to render is rendered again and sent as the same message, its history showing the retry', async () => {
    const { api, orgId } = await h.testOrg();
    const { ids, broadcast } = await sentWithOneRenderFailure(api);
    expect(broadcast.failedReasons).toEqual({ RENDER_FAILED: 1 });
    expect(broadcast.counts.failed).toBe(1);
    const [fay] = await h.deps.db.message.findMany({ where: { orgId, broadcastId: broadcast.id, contactId: ids.fay } });
    expect(fay).toMatchObject({ status: 'failed', errorCode: 'RENDER_FAILED', html: null });

    await api.patch(`/v1/contacts/${ids.fay}`, { attributes: { city: 'Rome' } });
    const retried = await api.post(`/v1/broadcasts/${broadcast.id}/retry-failed`);
    expect({ status: retried.status, body: retried.body }).toEqual({ status: 202, body: { count: 1 } });

    const settled = await untilBroadcast(api, broadcast.id, (b) => b.status === 'sent' && b.counts.delivered === 3, 'the retried message delivered');
    expect(settled).toMatchObject({ failedReasons: {}, counts: { failed: 0, delivered: 3 } });
    const messages = await h.deps.db.message.findMany({ where: { orgId, broadcastId: broadcast.id }, include: { events: { orderBy: { id: 'asc' } } } });
    expect(messages).toHaveLength(3); // the same message, one per contact still
    const again = messages.find((m) => m.contactId === ids.fay)!;
    expect(again).toMatchObject({ id: fay!.id, status: 'delivered', errorCode: null, html: '<p>Fay in Rome</p>' });
    expect(again.events.map((e) => e.status)).toEqual(['failed', 'queued', 'sending', 'sent', 'delivered']);

    // nothing left to retry: 202 with 0, nothing changes
    expect((await api.post(`/v1/broadcasts/${broadcast.id}/retry-failed`)).body).toEqual({ count: 0 });
  });

  it('another organization, a test key against a live broadcast and a draft: 404, 404 and a 409 sentence; nothing changes', async () => {
    const { api, orgId } = await h.liveOrg();
    const { broadcast } = await sentWithOneRenderFailure(api);
    const other = await h.liveOrg();
    expect((await other.api.post(`/v1/broadcasts/${broadcast.id}/retry-failed`)).body).toEqual({ code: 'NOT_FOUND', message: 'Broadcast not found' });
    expect((await other.api.get(`/v1/broadcasts/${broadcast.id}`)).status).toBe(404);
    // a test key of the same organization neither reads nor retries the live broadcast
    const testKey = await api.post('/v1/api-keys', { name: 'test', permission: 'full', mode: 'test' });
    const testApi = apiClient(h.app, testKey.body.key);
    expect((await testApi.post(`/v1/broadcasts/${broadcast.id}/retry-failed`)).body).toEqual({ code: 'NOT_FOUND', message: 'Broadcast not found' });
    expect((await testApi.get(`/v1/broadcasts/${broadcast.id}`)).status).toBe(404);
    const failed = await h.deps.db.message.findMany({ where: { orgId, broadcastId: broadcast.id, status: 'failed' }, include: { events: true } });
    expect(failed.map((m) => m.events.map((e) => e.status))).toEqual([['failed']]);

    const tpl = (await api.get('/v1/templates')).body.data[0];
    const draft = (await api.post('/v1/broadcasts', { name: 'Draft', channelType: 'email', templateId: tpl.id })).body;
    expect((await api.post(`/v1/broadcasts/${draft.id}/retry-failed`)).body).toEqual({
      code: 'CONFLICT',
      message: 'Only sending or sent broadcasts have failed messages to retry; this one is draft.',
    });
    expect((await api.post(`/v1/broadcasts/${broadcast.id}/send`)).body).toEqual({ code: 'CONFLICT', message: 'Only draft broadcasts can be sent; this one is sent.' });
  });
});
