import { TidingsError } from '../src/index.ts';
import { startApi } from './setup.ts';

let api: Awaited<ReturnType<typeof startApi>>;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

describe('tidings.messages against the running API', () => {
  it('sends an email with an sk_test_ key and reads it back with its history', async () => {
    const { tidings, key } = await api.org({}, { mode: 'test' });
    expect(key).toMatch(/^sk_test_/);
    const sent = await tidings.messages.send({ channelType: 'email', to: 'ada@example.com', from: 'hello@example.com', subject: 'Hi Ada', text: 'Hello from the SDK' });
    expect(sent).toMatchObject({ channelType: 'email', to: 'ada@example.com', subject: 'Hi Ada', text: 'Hello from the SDK', provider: 'sandbox' });
    expect(sent.id).toMatch(/^msg_/);

    const read = await tidings.messages.get(sent.id);
    expect(read).toMatchObject({ id: sent.id, to: 'ada@example.com', subject: 'Hi Ada' });
    expect(read.events.length).toBeGreaterThanOrEqual(1);
    expect(read.events[0].status).toBe(sent.status);
  });

  it('sends a batch: valid items are accepted, a bad one is null in data and listed in errors (checked against the document)', async () => {
    const { tidings } = await api.org({}, { mode: 'test' });
    const batch = await tidings.messages.sendBatch({
      messages: [
        { channelType: 'email', to: 'ada@example.com', from: 'hello@example.com', subject: 'One', text: 'First' },
        { channelType: 'sms', to: 'not-a-number', body: 'Second' },
      ],
    });
    expect(batch.data).toHaveLength(2);
    expect(batch.data[0]).toMatchObject({ to: 'ada@example.com', subject: 'One' });
    expect(batch.data[1]).toBeNull();
    expect(batch.errors).toEqual([expect.objectContaining({ index: 1, code: 'BAD_REQUEST' })]);
  });

  it('typed error: 404 for an unknown message id', async () => {
    const { tidings } = await api.org({}, { mode: 'test' });
    const error = await tidings.messages.get('msg_doesnotexist').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TidingsError);
    expect(error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });
});
