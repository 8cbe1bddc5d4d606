import { TidingsError } from '../src/index.ts';
import { startApi } from './setup.ts';

let api: Awaited<ReturnType<typeof startApi>>;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

describe('tidings.segments against the running API', () => {
  it('creates a segment and lists the contacts matching it', async () => {
    const { tidings } = await api.org({}, { mode: 'test' });
    await tidings.contacts.bulkCreate({
      contacts: [
        { email: 'pro1@example.com', attributes: { plan: 'pro' } },
        { email: 'free@example.com', attributes: { plan: 'free' } },
        { email: 'pro2@example.com', attributes: { plan: 'pro' } },
      ],
    });
    const segment = await tidings.segments.create({ name: 'Pro', criteria: { all: [{ field: 'attributes.plan', op: 'eq', value: 'pro' }] } });
    expect(segment).toMatchObject({ name: 'Pro', contactCount: 2 });
    expect(segment.id).toMatch(/^seg_/);

    const emails: string[] = [];
    for await (const contact of tidings.segments.listContacts(segment.id, { limit: 1 })) emails.push(contact.email!);
    expect(emails.sort()).toEqual(['pro1@example.com', 'pro2@example.com']);
  });

  it('typed error: 404 for an unknown segment id', async () => {
    const { tidings } = await api.org({}, { mode: 'test' });
    const error = await tidings.segments.get('seg_doesnotexist').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TidingsError);
    expect(error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });
});
