import createClient from 'openapi-fetch';
import type { paths } from '../src/openapi.generated.ts';
import { startApi } from './setup.ts';

// A client of third-party tools (openapi-typescript's types of the served document, the SDK's own generated file,
// type-checked by `tsc`; openapi-fetch for the calls) drives the apiKey flows over real HTTP, so the document serves a
// client that is not ours. Every answer is checked against the document's schemas (`validating`).
let api: Awaited<ReturnType<typeof startApi>>;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

async function generatedClient() {
  const { key } = await api.org();
  return createClient<paths>({ baseUrl: api.baseUrl, headers: { Authorization: `Bearer ${key}` }, fetch: api.validating() });
}

describe('a client generated from /v1/openapi.json by openapi-typescript and openapi-fetch', () => {
  it('creates, lists, rotates, disables, enables and deletes a key', async () => {
    const client = await generatedClient();
    const created = await client.POST('/api-keys', { body: { name: 'generated', permission: 'sending' } });
    expect(created.response.status).toBe(201);
    const key = created.data!;
    expect(key.key).toMatch(/^sk_live_/);
    expect(key.permission).toBe('sending');

    const listed = await client.GET('/api-keys', { params: { query: { limit: 1 } } });
    expect(listed.data!.data).toHaveLength(1);
    expect(listed.data!.hasMore).toBe(true);
    const next = await client.GET('/api-keys', { params: { query: { limit: 1, cursor: listed.data!.nextCursor! } } });
    expect(next.data!.data[0].id).not.toBe(listed.data!.data[0].id);

    const rotated = await client.POST('/api-keys/{id}/rotate', { params: { path: { id: key.id } }, body: { immediately: true } });
    expect(rotated.data!.key).not.toBe(key.key);
    const disabled = await client.POST('/api-keys/{id}/disable', { params: { path: { id: key.id } } });
    expect(disabled.data!.state).toBe('disabled');
    const enabled = await client.POST('/api-keys/{id}/enable', { params: { path: { id: key.id } } });
    expect(enabled.data!.state).toBe('enabled');
    const deleted = await client.DELETE('/api-keys/{id}', { params: { path: { id: key.id } } });
    expect(deleted.response.status).toBe(204);
  });

  it('gets the documented error shape for 400, 404 and 401', async () => {
    const client = await generatedClient();
    const invalid = await client.POST('/api-keys', { body: { name: '' } });
    expect(invalid.response.status).toBe(400);
    expect(invalid.error).toEqual({ code: 'BAD_REQUEST', message: expect.stringMatching(/^name/) });

    const missing = await client.POST('/api-keys/{id}/disable', { params: { path: { id: 'key_missing' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.code).toBe('NOT_FOUND');

    const anonymous = createClient<paths>({ baseUrl: api.baseUrl, fetch: api.validating() });
    const refused = await anonymous.GET('/api-keys');
    expect(refused.response.status).toBe(401);
    expect(refused.error?.code).toBe('UNAUTHORIZED');
  });
});
