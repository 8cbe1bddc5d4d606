import { TidingsError } from '../src/index.ts';
import { startApi } from './setup.ts';

let api: Awaited<ReturnType<typeof startApi>>;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

describe('tidings.topics against the running API', () => {
  it("creates, lists, updates and deletes a topic, and sets a contact's choice", async () => {
    const { tidings } = await api.org({}, { mode: 'test' });
    const topic = await tidings.topics.create({ name: 'Product news', defaultSubscription: 'opt_out' });
    expect(topic).toMatchObject({ name: 'Product news', defaultSubscription: 'opt_out', visibility: 'public', description: null });
    expect(topic.id).toMatch(/^top_/);
    const contact = await tidings.contacts.create({ email: 'ada@example.com', topics: [{ topicId: topic.id, subscribed: false }] });
    expect(contact.topics).toEqual([{ topicId: topic.id, subscribed: false }]);

    const names: string[] = [];
    for await (const t of tidings.topics.list({ limit: 1 })) names.push(t.name);
    expect(names).toEqual(['Product news']);
    expect(await tidings.topics.update(topic.id, { visibility: 'private' })).toMatchObject({ visibility: 'private' });
    expect(await tidings.topics.get(topic.id)).toMatchObject({ visibility: 'private' });
    await tidings.topics.delete(topic.id);
    const error = await tidings.topics.get(topic.id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TidingsError);
    expect(error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect((await tidings.contacts.get(contact.id)).topics).toEqual([]);
  });
});
