import { Tidings } from '../src/index.ts';
import { recordingFetch, startApi, caught } from './setup.ts';

// No TELNYX_API_KEY: every key gets the sandbox number provider.
let api: Awaited<ReturnType<typeof startApi>>;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

describe('tidings.phoneNumbers against the running API', () => {
  it('searches, purchases, lists, gets, updates and releases numbers', async () => {
    const { tidings } = await api.org();
    const { data: available } = await tidings.phoneNumbers.searchAvailable({ country: 'US', areaCode: '415', limit: 3 });
    expect(available).toHaveLength(3);
    for (const n of available) expect(n).toMatchObject({ number: expect.stringMatching(/^\+1415\d{7}$/), type: 'local', country: 'US' });

    const first = await tidings.phoneNumbers.purchase({ number: available[0]!.number, friendlyName: 'Support' });
    expect(first).toMatchObject({ number: available[0]!.number, friendlyName: 'Support', isDefault: true, provider: 'sandbox' });
    expect(first.id).toMatch(/^pn_/);
    const second = await tidings.phoneNumbers.purchase({ number: available[1]!.number });
    expect(second.isDefault).toBe(false);

    expect(await tidings.phoneNumbers.get(first.id)).toEqual(first);
    const promoted = await tidings.phoneNumbers.update(second.id, { isDefault: true, friendlyName: 'Sales' });
    expect(promoted).toMatchObject({ isDefault: true, friendlyName: 'Sales' });
    expect(await tidings.phoneNumbers.get(first.id)).toMatchObject({ isDefault: false });
    expect(await tidings.phoneNumbers.update(first.id, { friendlyName: null })).toMatchObject({ friendlyName: null });

    const listed = await tidings.phoneNumbers.list().toArray();
    expect(listed.map((n) => n.id)).toEqual([second.id, first.id]);

    await expect(tidings.phoneNumbers.release(first.id)).resolves.toBeUndefined();
    expect(await caught(tidings.phoneNumbers.get(first.id))).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect((await tidings.phoneNumbers.list().toArray()).map((n) => n.id)).toEqual([second.id]);
  });

  it('purchase sends a generated Idempotency-Key; the same key again replays the purchase instead of buying twice', async () => {
    const { key, orgId } = await api.org();
    const wire = recordingFetch();
    const tidings = new Tidings({ apiKey: key, baseUrl: api.baseUrl, fetch: api.validating(wire.fetch) });
    const { data } = await tidings.phoneNumbers.searchAvailable({ country: 'US', type: 'tollFree', limit: 2 });

    await tidings.phoneNumbers.purchase({ number: data[0]!.number });
    const generated = wire.exchanges.at(-1)!.headers.get('idempotency-key');
    expect(generated).toMatch(/.{16,}/);

    const once = await tidings.phoneNumbers.purchase({ number: data[1]!.number }, { idempotencyKey: 'buy-2' });
    const again = await tidings.phoneNumbers.purchase({ number: data[1]!.number }, { idempotencyKey: 'buy-2' });
    expect(again.id).toBe(once.id);
    expect(wire.exchanges.at(-1)!.responseHeaders.get('idempotent-replayed')).toBe('true');
    expect(await api.deps.db.phoneNumber.count({ where: { orgId } })).toBe(2);
  });

  it('walks owned numbers with for await across pages', async () => {
    const { tidings } = await api.org();
    const { data } = await tidings.phoneNumbers.searchAvailable({ country: 'GB', type: 'mobile', limit: 3 });
    const bought: string[] = [];
    for (const n of data) bought.push((await tidings.phoneNumbers.purchase({ number: n.number })).id);
    const seen: string[] = [];
    for await (const number of tidings.phoneNumbers.list({ limit: 1 })) seen.push(number.id);
    expect(seen).toEqual([...bought].reverse());
  });

  it('typed errors: 404 for another organization’s number, which stays as it was; 400 names the field', async () => {
    const owner = await api.org();
    const stranger = await api.org();
    const [candidate] = (await owner.tidings.phoneNumbers.searchAvailable({ country: 'US', areaCode: '212', limit: 1 })).data;
    const number = await owner.tidings.phoneNumbers.purchase({ number: candidate!.number, friendlyName: 'Owner' });

    const foreign = await caught(stranger.tidings.phoneNumbers.update(number.id, { friendlyName: 'Taken' }));
    expect(foreign).toMatchObject({ code: 'NOT_FOUND', status: 404, requestId: expect.any(String) });
    expect(await caught(stranger.tidings.phoneNumbers.release(number.id))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await owner.tidings.phoneNumbers.get(number.id)).toEqual(number);

    const invalid = await caught(owner.tidings.phoneNumbers.purchase({ number: '0415555' }));
    expect(invalid).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
    expect(invalid.message).toMatch(/^number/);
    const badSearch = await caught(owner.tidings.phoneNumbers.searchAvailable({ country: 'USA' }));
    expect(badSearch.message).toMatch(/country/);
  });
});
