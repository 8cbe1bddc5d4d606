import { TidingsError } from '../src/index.ts';
import { startApi } from './setup.ts';

let api: Awaited<ReturnType<typeof startApi>>;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

describe('tidings.broadcasts against the running API', () => {
  it('creates, schedules, reads, lists by status and cancels a broadcast', async () => {
    const { tidings } = await api.org({}, { mode: 'test' });
    const template = await tidings.templates.create({ name: 'News', channelType: 'email', subject: 'Hi {{ contact.firstName }}', text: 'News' });
    const segment = await tidings.segments.create({ name: 'All pros', criteria: { all: [{ field: 'attributes.plan', op: 'eq', value: 'pro' }] } });
    const draft = await tidings.broadcasts.create({ name: 'News', channelType: 'email', templateId: template.id, segmentId: segment.id, tags: ['news'] });
    expect(draft).toMatchObject({ status: 'draft', templateId: template.id, segmentId: segment.id, tags: ['news'] });

    const scheduled = await tidings.broadcasts.send(draft.id, { scheduledAt: new Date(Date.now() + 3_600_000).toISOString() });
    expect(scheduled.status).toBe('scheduled');
    expect((await tidings.broadcasts.get(draft.id)).counts.recipients).toBe(0);
    const listed: string[] = [];
    for await (const b of tidings.broadcasts.list({ status: 'scheduled' })) listed.push(b.id);
    expect(listed).toEqual([draft.id]);
    expect((await tidings.broadcasts.cancel(draft.id)).status).toBe('canceled');
  });

  it("typed errors: 404 for another organization's broadcast, 409 deleting one that is not a draft", async () => {
    const { tidings } = await api.org({}, { mode: 'test' });
    const other = await api.org({}, { mode: 'test' });
    const template = await tidings.templates.create({ name: 'N', channelType: 'sms', body: 'Hi' });
    const draft = await tidings.broadcasts.create({ name: 'N', channelType: 'sms', templateId: template.id });
    expect(await other.tidings.broadcasts.get(draft.id).catch((e: unknown) => e)).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    await tidings.broadcasts.send(draft.id, { scheduledAt: new Date(Date.now() + 3_600_000).toISOString() });
    const error = await tidings.broadcasts.delete(draft.id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TidingsError);
    expect(error).toMatchObject({ code: 'CONFLICT', status: 409 });
    await tidings.broadcasts.cancel(draft.id);
  });
});
