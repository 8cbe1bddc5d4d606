import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import createClient, { type Middleware } from 'openapi-fetch';
import { responseValidatorFor, serveHttp, type RunningServer } from '@tidings/testing';
import type { paths } from './generated/openapi';
import { GENERATED_TYPES_PATH } from './openapi-types.ts';
import { setupApi } from './setup.ts';

// A client generated from the served document by third-party tools (openapi-typescript for the types, committed
// and type-checked by `tsc`; openapi-fetch for the calls) drives the apiKey flows over real HTTP.
const t = setupApi();
let server: RunningServer;
beforeAll(async () => {
  server = await serveHttp(t.app.fetch);
});
afterAll(async () => {
  await server.close();
  await t.close();
});

/** Every answer the generated client gets is also checked against the document's schemas. */
const checkedAgainstDocument: Middleware = {
  async onResponse({ request, response }) {
    const check = await responseValidatorFor(t.app);
    check?.(request.method, new URL(request.url).pathname, response.status, await response.clone().text());
  },
};

async function generatedClient() {
  const { key } = await t.org();
  const client = createClient<paths>({ baseUrl: `${server.url}/v1`, headers: { Authorization: `Bearer ${key}` } });
  client.use(checkedAgainstDocument);
  return client;
}

describe('a client generated from /v1/openapi.json', () => {
  it('the committed generated types are those of the served document (else: npm run openapi:types -w @tidings/api)', async () => {
    const document = (await t.anonymous.get('/v1/openapi.json')).body;
    // openapi-typescript runs in a child process: it is ESM underneath, which jest's CommonJS cannot load
    const generated = execFileSync(process.execPath, [require.resolve('tsx/cli'), require.resolve('./openapi-types.ts'), '--stdout'], {
      input: JSON.stringify(document),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(readFileSync(GENERATED_TYPES_PATH, 'utf8')).toBe(generated);
  });

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

    const anonymous = createClient<paths>({ baseUrl: `${server.url}/v1` });
    anonymous.use(checkedAgainstDocument);
    const refused = await anonymous.GET('/api-keys');
    expect(refused.response.status).toBe(401);
    expect(refused.error?.code).toBe('UNAUTHORIZED');
  });
});
