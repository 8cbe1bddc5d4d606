import { TidingsError } from '../src/index.ts';
import { startApi } from './setup.ts';

let api: Awaited<ReturnType<typeof startApi>>;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

describe('tidings.contacts against the running API', () => {
  it('bulk-creates contacts, reporting the bad row by index, then walks them all with for await', async () => {
    const { tidings } = await api.org({}, { mode: 'test' });
    const emails = ['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com', 'e@example.com'];
    const result = await tidings.contacts.bulkCreate({ contacts: [...emails.map((email) => ({ email, attributes: { plan: 'pro' } })), { email: 'not-an-email' }] });
    expect(result.created.map((c) => c.email)).toEqual(emails);
    expect(result.errors).toEqual([expect.objectContaining({ index: 5, code: 'BAD_REQUEST' })]);

    const seen: string[] = [];
    for await (const contact of tidings.contacts.list({ limit: 2 })) seen.push(contact.email!);
    expect([...seen].sort()).toEqual(emails);

    const [first] = result.created;
    expect(await tidings.contacts.get(first.id)).toMatchObject({ id: first.id, attributes: { plan: 'pro' } });
  });

  it('typed error: 404 for an unknown contact id', async () => {
    const { tidings } = await api.org({}, { mode: 'test' });
    const error = await tidings.contacts.get('con_doesnotexist').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TidingsError);
    expect(error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });
});
