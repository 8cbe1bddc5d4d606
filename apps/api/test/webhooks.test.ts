import { connect, type AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { startWebhookReceiver, type WebhookReceiver } from '@tidings/testing';
import { setupApi } from './setup.ts';

const t = setupApi({ WEBHOOK_ALLOW_LOOPBACK: 'true' });
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

const hook = (extra: Record<string, unknown> = {}) => ({ url: `${receiver.url}/hook`, events: ['message.delivered', 'contact.created'], ...extra });

describe('webhook operations', () => {
  it('create returns the secret once; it is stored encrypted and never shown again', async () => {
    const { api } = await t.org();
    const created = await api.post('/v1/webhooks', hook({ description: 'CRM sync' }));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      url: `${receiver.url}/hook`,
      events: ['message.delivered', 'contact.created'],
      description: 'CRM sync',
      enabled: true,
      disabledReason: null,
      failingSince: null,
      previousSecretExpiresAt: null,
    });
    expect(created.body.id).toMatch(/^whk_/);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const row = await t.deps.db.webhook.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(JSON.stringify(row)).not.toContain(created.body.secret.slice(6));

    const got = await api.get(`/v1/webhooks/${created.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: created.body.id, recentEvents: [] });
    expect(got.body.secret).toBeUndefined();
    const listed = await api.get('/v1/webhooks');
    expect(listed.body.data.map((w: { id: string }) => w.id)).toEqual([created.body.id]);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.secret);
  });

  it('lists newest first with pagination', async () => {
    const { api } = await t.org();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await api.post('/v1/webhooks', hook())).body.id);
    const first = await api.get('/v1/webhooks?limit=2');
    expect(first.body.data.map((w: { id: string }) => w.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.hasMore).toBe(true);
    const second = await api.get(`/v1/webhooks?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body).toMatchObject({ hasMore: false, nextCursor: null });
    expect(second.body.data.map((w: { id: string }) => w.id)).toEqual([ids[0]]);
  });

  it.each([
    [{ url: 'not a url', events: ['contact.created'] }, 'url: must be an absolute http(s) URL'],
    [{ url: 'ftp://example.com/x', events: ['contact.created'] }, 'url: must use http or https'],
    [{ url: 'http://127.0.0.1/x', events: [] }, 'events'],
    [{ url: 'http://127.0.0.1/x', events: ['message.exploded'] }, 'events'],
    [{ url: 'http://127.0.0.1/x' }, 'events'],
    [{ url: 'http://127.0.0.1/x', events: ['contact.created'], secret: 'mine' }, 'secret'],
  ])('bad input %j is 400 naming the field, and nothing is created', async (body, field) => {
    const { api, orgId } = await t.org();
    const res = await api.post('/v1/webhooks', body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
    expect(res.body.message).toContain(field);
    expect(await t.deps.db.webhook.count({ where: { orgId } })).toBe(0);
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', 'cloud metadata'],
    ['http://10.0.0.8/hook', 'private'],
    ['http://[fd00::1]/hook', 'uniqueLocal'],
    ['http://[::ffff:192.168.1.1]/hook', 'private'],
    ['http://100.64.0.1/hook', 'carrierGradeNat'],
    ['http://0.0.0.0:8080/hook', 'unspecified'],
    // IPv6 forms that carry a refused IPv4 address (the URL parser stores [::127.0.0.1] as [::7f00:1])
    ['http://[::127.0.0.1]/hook', 'ipv4Compatible'],
    ['http://[::a9fe:a9fe]/latest/meta-data/', 'ipv4Compatible'],
    ['http://[::10.0.0.8]/hook', 'ipv4Compatible'],
    ['http://[64:ff9b::a9fe:a9fe]/hook', 'rfc6052'],
    ['http://[2002:a9fe:a9fe::1]/hook', '6to4'],
  ])('create refuses %s (%s) with 400', async (url, reason) => {
    const { api, orgId } = await t.org();
    const res = await api.post('/v1/webhooks', { url, events: ['contact.created'] });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^url: .*non-public address/);
    expect(res.body.message).toContain(reason);
    expect(await t.deps.db.webhook.count({ where: { orgId } })).toBe(0);
  });

  it('loopback is refused unless WEBHOOK_ALLOW_LOOPBACK, and http is refused in production', async () => {
    const strict = setupApi();
    const production = setupApi({
      NODE_ENV: 'production',
      WEBHOOK_SECRET_KEY: 'a production key of some length',
      UNSUBSCRIBE_SECRET: 'a production unsubscribe secret',
      PASSWORD_HASH_COST: '15', // production's least, not the suites' lowered one
    });
    try {
      const { api } = await strict.org();
      const loopback = await api.post('/v1/webhooks', { url: `http://localhost:${receiver.port}/`, events: ['contact.created'] });
      expect(loopback.status).toBe(400);
      expect(loopback.body.message).toContain('loopback');
      const prod = await production.org();
      const http = await prod.api.post('/v1/webhooks', { url: 'http://example.com/hook', events: ['contact.created'] });
      expect(http.status).toBe(400);
      expect(http.body).toEqual({ code: 'BAD_REQUEST', message: 'url: must use https' });
    } finally {
      await strict.close();
      await production.close();
    }
  });

  it('update changes url, events, description; a bad url is refused and changes nothing', async () => {
    const { api } = await t.org();
    const { body: created } = await api.post('/v1/webhooks', hook({ description: 'old' }));
    const updated = await api.patch(`/v1/webhooks/${created.id}`, { url: `${receiver.url}/v2`, events: ['message.bounced'], description: null });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ url: `${receiver.url}/v2`, events: ['message.bounced'], description: null });

    const refused = await api.patch(`/v1/webhooks/${created.id}`, { url: 'http://169.254.169.254/', events: ['contact.created'] });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('url:');
    const unknownField = await api.patch(`/v1/webhooks/${created.id}`, { secret: 'x' });
    expect(unknownField.status).toBe(400);
    const empty = await api.patch(`/v1/webhooks/${created.id}`, {});
    expect(empty.status).toBe(400);
    const after = await api.get(`/v1/webhooks/${created.id}`);
    expect(after.body).toMatchObject({ url: `${receiver.url}/v2`, events: ['message.bounced'] });
  });

  it('delete disables (200, enabled false); test is then refused; update enabled:true re-enables', async () => {
    const { api } = await t.org();
    const { body: created } = await api.post('/v1/webhooks', hook());
    const deleted = await api.delete(`/v1/webhooks/${created.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id: created.id, enabled: false, disabledReason: 'manual' });
    expect((await api.get(`/v1/webhooks/${created.id}`)).body.enabled).toBe(false);

    const test = await api.post(`/v1/webhooks/${created.id}/test`);
    expect(test.status).toBe(400);
    expect(test.body.message).toContain('disabled');
    expect(await t.deps.db.webhookDelivery.count({ where: { webhookId: created.id } })).toBe(0);

    const enabled = await api.patch(`/v1/webhooks/${created.id}`, { enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null });
  });

  it('test: 202 with a pending webhook.test delivery, queued with jobId = delivery id; listEvents filters by status', async () => {
    const { api } = await t.org();
    const { body: created } = await api.post('/v1/webhooks', hook());
    const test = await api.post(`/v1/webhooks/${created.id}/test`);
    expect(test.status).toBe(202);
    expect(test.body).toMatchObject({ webhookId: created.id, eventType: 'webhook.test', status: 'pending', attempts: 0, lastAttempt: null });
    expect(test.body.id).toMatch(/^dlv_/);
    expect(test.body.eventId).toMatch(/^evt_/);
    const job = await t.deps.queues.webhooks.getJob(test.body.id);
    expect(job?.data).toEqual({ deliveryId: test.body.id, createdAt: test.body.createdAt });
    const event = await t.deps.db.event.findUniqueOrThrow({ where: { id: test.body.eventId } });
    expect(event.data).toMatchObject({ id: created.id, url: created.url });
    expect(JSON.stringify(event.data)).not.toContain(created.secret);

    const pending = await api.get(`/v1/webhooks/${created.id}/events?status=pending`);
    expect(pending.status).toBe(200);
    expect(pending.body.data.map((d: { id: string }) => d.id)).toEqual([test.body.id]);
    const succeeded = await api.get(`/v1/webhooks/${created.id}/events?status=succeeded`);
    expect(succeeded.body.data).toEqual([]);
    const all = await api.get(`/v1/webhooks/${created.id}/events`);
    expect(all.body.data).toHaveLength(1);
    const bad = await api.get(`/v1/webhooks/${created.id}/events?status=lost`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('status');
    expect((await api.get(`/v1/webhooks/${created.id}`)).body.recentEvents.map((d: { id: string }) => d.id)).toEqual([test.body.id]);
  });

  it('rotateSecret: a new secret once; the previous one overlaps for 24 h', async () => {
    const { api } = await t.org();
    const { body: created } = await api.post('/v1/webhooks', hook());
    const rotated = await api.post(`/v1/webhooks/${created.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.secret);
    const overlapMs = new Date(rotated.body.previousSecretExpiresAt).getTime() - Date.now();
    expect(overlapMs).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(overlapMs).toBeLessThanOrEqual(24 * 3600_000);
  });

  it("another organization's webhook id is 404 for every operation and changes nothing", async () => {
    const owner = await t.org();
    const stranger = await t.org();
    const { body: target } = await owner.api.post('/v1/webhooks', hook());
    const id = target.id;
    const attempts = [
      stranger.api.get(`/v1/webhooks/${id}`),
      stranger.api.patch(`/v1/webhooks/${id}`, { enabled: false }),
      stranger.api.delete(`/v1/webhooks/${id}`),
      stranger.api.post(`/v1/webhooks/${id}/test`),
      stranger.api.get(`/v1/webhooks/${id}/events`),
      stranger.api.post(`/v1/webhooks/${id}/rotate-secret`),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'NOT_FOUND', message: 'Webhook not found' });
    }
    expect((await stranger.api.get('/v1/webhooks')).body.data).toEqual([]);
    const row = await t.deps.db.webhook.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ enabled: true, previousSecretCiphertext: null });
    expect(await t.deps.db.webhookDelivery.count({ where: { webhookId: id } })).toBe(0);
  });

  it('a sending key may not manage webhooks (403)', async () => {
    const { api } = await t.org();
    const sending = await api.post('/v1/api-keys', { name: 'sender', permission: 'sending' });
    const res = await t.anonymous.post('/v1/webhooks', hook(), { authorization: `Bearer ${sending.body.key}` });
    expect(res.status).toBe(403);
  });

  it('test and rotate-secret work over real HTTP with no body at all (as `curl -X POST` sends them)', async () => {
    const { api, key } = await t.org();
    const { body: created } = await api.post('/v1/webhooks', hook());
    const server = serve({ fetch: t.app.fetch, hostname: '127.0.0.1', port: 0 });
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    // a raw request: no Content-Length, no Transfer-Encoding, no Content-Type
    const rawPost = (path: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`));
        let answer = '';
        socket.on('data', (d) => (answer += d));
        socket.on('end', () => resolve(answer));
        socket.on('error', reject);
      });
    try {
      expect((await rawPost(`/v1/webhooks/${created.id}/test`)).split('\r\n')[0]).toBe('HTTP/1.1 202 Accepted');
      expect((await rawPost(`/v1/webhooks/${created.id}/rotate-secret`)).split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('the OpenAPI document carries the eleven webhook operations', async () => {
    const res = await t.anonymous.get('/v1/openapi.json');
    const ids = Object.values(res.body.paths as Record<string, Record<string, { operationId: string }>>)
      .flatMap((p) => Object.values(p))
      .map((o) => o.operationId)
      .filter((id) => id.startsWith('webhook.'))
      .sort();
    expect(ids).toEqual([
      'webhook.create',
      'webhook.delete',
      'webhook.get',
      'webhook.getEvent',
      'webhook.list',
      'webhook.listEvents',
      'webhook.replay',
      'webhook.retryEvent',
      'webhook.rotateSecret',
      'webhook.test',
      'webhook.update',
    ]);
  });
});
