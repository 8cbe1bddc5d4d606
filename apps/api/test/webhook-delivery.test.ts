import { recordEvents, unitOfWork, type OutboxItem, type UnitOfWorkDeps } from '@tidings/core';
import { startWebhookReceiver, waitFor, type WebhookReceiver } from '@tidings/testing';
import { startWebhookWorker } from '@tidings/webhook-worker';
import type { Resolver } from '@tidings/webhooks';
import pino from 'pino';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { setupApi } from './setup.ts';

/** Adds jobs whose rows were written before, as a unit of work does after its commit. */
const dispatch = (deps: UnitOfWorkDeps, items: OutboxItem[]) => unitOfWork(deps, async (_db, outbox) => outbox.add(items), { transaction: false });

// Retries after 100, 200 and 300 ms instead of 5 s ... 10 h, and a 500 ms timeout: the real schedule, in miniature.
const t = setupApi({ WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '100,200,300', WEBHOOK_TIMEOUT_MS: '500' });
// DNS for delivery-time checks: one name answers with an allowed and a private address at once.
const resolve: Resolver = async (name) =>
  name === 'mixed.test'
    ? [
        { address: '127.0.0.2', family: 4 },
        { address: '10.0.0.9', family: 4 },
      ]
    : [{ address: '127.0.0.1', family: 4 }];
const worker = startWebhookWorker(t.deps, { resolve });

let receiver: WebhookReceiver;
let internal: WebhookReceiver; // another loopback address: it must never be reached
beforeEach(async () => {
  receiver = await startWebhookReceiver();
  internal = await startWebhookReceiver({ host: '127.0.0.2' });
});
afterEach(async () => {
  await receiver.close();
  await internal.close();
});
afterAll(async () => {
  await worker.close();
  await t.close();
});

async function endpoint(events = ['contact.created']) {
  const org = await t.org();
  const { body } = await org.api.post('/v1/webhooks', { url: `${receiver.url}/hook`, events });
  return { ...org, webhook: body as { id: string; secret: string } };
}

/** Waits until the delivery leaves `pending`, and returns it as the API shows it. */
async function settled(api: Awaited<ReturnType<typeof endpoint>>['api'], webhookId: string, deliveryId: string, timeoutMs = 8_000) {
  return waitFor(
    async () => {
      const { body } = await api.get(`/v1/webhooks/${webhookId}/events?limit=100`);
      const delivery = body.data.find((d: { id: string }) => d.id === deliveryId);
      return delivery && delivery.status !== 'pending' ? delivery : null;
    },
    timeoutMs,
    `delivery ${deliveryId} to leave pending`,
  );
}

const attemptsOf = (deliveryId: string) => t.deps.db.webhookAttempt.findMany({ where: { deliveryId }, orderBy: { number: 'asc' } });

describe('webhook delivery by the webhook-worker', () => {
  it('delivers a signed webhook.test that the official standardwebhooks library verifies', async () => {
    const { api, webhook } = await endpoint();
    const test = await api.post(`/v1/webhooks/${webhook.id}/test`);
    const delivery = await settled(api, webhook.id, test.body.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 1, lastAttempt: { statusCode: 200, error: null } });

    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request!.path).toBe('/hook');
    expect(request!.headers['webhook-id']).toBe(test.body.eventId);
    expect(request!.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    const payload = new StandardWebhook(webhook.secret).verify(request!.body, request!.headers);
    expect(payload).toEqual({ id: test.body.eventId, type: 'webhook.test', createdAt: expect.any(String), data: expect.objectContaining({ id: webhook.id }) });
    expect(JSON.stringify(payload)).not.toContain(webhook.secret);
  });

  it('a 500 then a 200: retried on the schedule and succeeds, same webhook-id each time', async () => {
    const { api, webhook } = await endpoint();
    receiver.replyNext({ kind: 'status', status: 500, body: 'try later' });
    const test = await api.post(`/v1/webhooks/${webhook.id}/test`);
    const delivery = await settled(api, webhook.id, test.body.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([test.body.eventId, test.body.eventId]);
    expect(receiver.requests[1]!.at - receiver.requests[0]!.at).toBeGreaterThanOrEqual(90);
    const attempts = await attemptsOf(test.body.id);
    expect(attempts.map((a) => [a.number, a.statusCode, a.error, a.responseBody])).toEqual([
      [1, 500, 'HTTP 500', 'try later'],
      [2, 200, null, '{"ok":true}'],
    ]);
    expect(attempts.every((a) => a.durationMs >= 0)).toBe(true);
    expect((await api.get(`/v1/webhooks/${webhook.id}`)).body.failingSince).toBeNull();
  });

  it('honours a Retry-After longer than the scheduled step', async () => {
    const { api, webhook } = await endpoint();
    receiver.replyNext({ kind: 'status', status: 503, headers: { 'retry-after': '1' } });
    const test = await api.post(`/v1/webhooks/${webhook.id}/test`);
    await settled(api, webhook.id, test.body.id);
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[1]!.at - receiver.requests[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('410 Gone disables the endpoint at once; nothing is delivered to it afterwards', async () => {
    const { api, webhook, orgId } = await endpoint();
    receiver.replyNext({ kind: 'status', status: 410 });
    const test = await api.post(`/v1/webhooks/${webhook.id}/test`);
    expect(await settled(api, webhook.id, test.body.id)).toMatchObject({ status: 'failed', attempts: 1, lastAttempt: { statusCode: 410 } });
    expect((await api.get(`/v1/webhooks/${webhook.id}`)).body).toMatchObject({ enabled: false, disabledReason: 'gone' });
    const outbox = await t.deps.db.$transaction((tx) => recordEvents(tx, [{ orgId, type: 'contact.created', data: {} }]));
    expect(outbox).toEqual([]);
    expect(receiver.requests).toHaveLength(1);
  });

  it('a redirect is a failure and is never followed; after the schedule the delivery is failed', async () => {
    const { api, webhook } = await endpoint();
    receiver.setDefault({ kind: 'redirect', location: `${internal.url}/internal` });
    const test = await api.post(`/v1/webhooks/${webhook.id}/test`);
    const delivery = await settled(api, webhook.id, test.body.id);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 4, nextAttemptAt: null, lastAttempt: { statusCode: 302, error: 'redirect (302) not followed' } });
    expect(receiver.requests).toHaveLength(4);
    expect(internal.requests).toHaveLength(0);
    expect((await api.get(`/v1/webhooks/${webhook.id}`)).body.failingSince).not.toBeNull();
  });

  it('a slow receiver times out, and the retry succeeds; a huge answer is stored up to 64 KiB', async () => {
    const { api, webhook } = await endpoint();
    receiver.replyNext({ kind: 'slow', delayMs: 3_000 }, { kind: 'huge', bytes: 1024 * 1024 });
    const test = await api.post(`/v1/webhooks/${webhook.id}/test`);
    expect(await settled(api, webhook.id, test.body.id)).toMatchObject({ status: 'succeeded', attempts: 2 });
    const [slow, huge] = await attemptsOf(test.body.id);
    expect(slow).toMatchObject({ statusCode: null, error: 'timeout: no complete answer within 500 ms' });
    expect(slow!.durationMs).toBeGreaterThanOrEqual(490);
    expect(huge).toMatchObject({ statusCode: 200, error: null });
    expect(huge!.responseBody).toHaveLength(64 * 1024);
  });

  it('at delivery time, targets that became non-public are refused and never receive a request', async () => {
    const { api, webhook } = await endpoint();
    for (const url of [`http://mixed.test:${internal.port}/`, 'http://169.254.169.254/latest/meta-data/', `http://[fd00::1]:${internal.port}/`]) {
      // the stored URL changed behind the API's back (or its DNS did): the worker checks again
      await t.deps.db.webhook.update({ where: { id: webhook.id }, data: { url } });
      const test = await api.post(`/v1/webhooks/${webhook.id}/test`);
      const attempt = await waitForAttempt(test.body.id);
      expect(attempt.statusCode).toBeNull();
      expect(attempt.error).toMatch(/^refused: url: .* resolves to a non-public address/);
    }
    expect(internal.requests).toHaveLength(0);
    expect(receiver.requests).toHaveLength(0);
  });

  it('during a rotation overlap every delivery carries two signatures; old and new secret both verify', async () => {
    const { api, webhook } = await endpoint();
    const rotated = await api.post(`/v1/webhooks/${webhook.id}/rotate-secret`);
    const test = await api.post(`/v1/webhooks/${webhook.id}/test`);
    await settled(api, webhook.id, test.body.id);
    const [request] = receiver.requests;
    expect(request!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new StandardWebhook(webhook.secret).verify(request!.body, request!.headers)).toMatchObject({ type: 'webhook.test' });
    expect(new StandardWebhook(rotated.body.secret).verify(request!.body, request!.headers)).toMatchObject({ type: 'webhook.test' });

    // once the overlap is over, only the new secret signs
    await t.deps.db.webhook.update({ where: { id: webhook.id }, data: { previousSecretExpiresAt: new Date(Date.now() - 1) } });
    const again = await api.post(`/v1/webhooks/${webhook.id}/test`);
    await settled(api, webhook.id, again.body.id);
    const later = receiver.requests[1]!;
    expect(later.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(new StandardWebhook(rotated.body.secret).verify(later.body, later.headers)).toMatchObject({ type: 'webhook.test' });
    expect(() => new StandardWebhook(webhook.secret).verify(later.body, later.headers)).toThrow();
  });

  it('only subscribed types arrive, one delivery per endpoint', async () => {
    const { api, webhook, orgId } = await endpoint(['contact.created', 'message.delivered']);
    const second = await api.post('/v1/webhooks', { url: `${receiver.url}/second`, events: ['message.delivered'] });
    const outbox = await t.deps.db.$transaction((tx) =>
      recordEvents(tx, [
        { orgId, type: 'contact.created', data: { id: 'con_1' } },
        { orgId, type: 'message.sent', data: { id: 'msg_1' } },
        { orgId, type: 'message.delivered', data: { id: 'msg_1' } },
        { orgId, type: 'contact.deleted', data: { id: 'con_1' } },
      ]),
    );
    expect(outbox).toHaveLength(3);
    await dispatch(t.deps, outbox);
    await receiver.waitForRequests(3);
    // exactly one delivery row per (event, subscribed endpoint): nothing else can arrive later
    expect(await t.deps.db.webhookDelivery.count({ where: { orgId } })).toBe(3);
    const got = receiver.requests.map((r) => `${r.path} ${JSON.parse(r.body).type}`).sort();
    expect(got).toEqual(['/hook contact.created', '/hook message.delivered', '/second message.delivered']);
    for (const r of receiver.requests.filter((r) => r.path === '/hook')) {
      expect(new StandardWebhook(webhook.secret).verify(r.body, r.headers)).toMatchObject({ data: expect.any(Object) });
    }
    expect(second.status).toBe(201);
  });

  it("a message event's payload carries the message's mode", async () => {
    const { api } = await t.org({ mode: 'test' });
    const { body: webhook } = await api.post('/v1/webhooks', { url: `${receiver.url}/hook`, events: ['message.queued'] });
    const sent = await api.post('/v1/messages', { channelType: 'email', to: 'ada@example.com', subject: 'Hi', text: 'Hello' });
    expect(sent.status).toBe(202);
    const [request] = await receiver.waitForRequests(1);
    const payload = new StandardWebhook(webhook.secret).verify(request!.body, request!.headers) as { type: string; data: { id: string; mode: string } };
    expect(payload).toMatchObject({ type: 'message.queued', data: { id: sent.body.id, mode: 'test' } });
  });

  it('a disabled endpoint receives nothing, not even deliveries queued before it was disabled', async () => {
    const { api, webhook, orgId } = await endpoint();
    // queued but not yet enqueued (its dispatch never happened)...
    const queued = await t.deps.db.$transaction((tx) => recordEvents(tx, [{ orgId, type: 'contact.created', data: {} }]));
    expect(queued).toHaveLength(1);
    // ...then the endpoint is deleted (disabled), then the job reaches the queue (as the outbox relay would do it)
    await api.delete(`/v1/webhooks/${webhook.id}`);
    expect(await t.deps.db.$transaction((tx) => recordEvents(tx, [{ orgId, type: 'contact.created', data: {} }]))).toEqual([]);
    await dispatch(t.deps, queued);
    expect(await settled(api, webhook.id, queued[0]!.jobId)).toMatchObject({ status: 'failed', attempts: 0 });
    expect(receiver.requests).toHaveLength(0);
  });

  it('no secret or signature ever reaches a log line', async () => {
    const lines: string[] = [];
    const quiet = t.deps.logger;
    t.deps.logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
    try {
      const { api, webhook } = await endpoint();
      const rotated = await api.post(`/v1/webhooks/${webhook.id}/rotate-secret`);
      receiver.replyNext({ kind: 'status', status: 500, body: 'nope' });
      const test = await api.post(`/v1/webhooks/${webhook.id}/test`);
      await settled(api, webhook.id, test.body.id);
      expect(lines.some((l) => l.includes('webhook delivery attempt'))).toBe(true);
      const log = lines.join('\n');
      for (const secret of [webhook.secret, rotated.body.secret]) expect(log).not.toContain(secret.slice('whsec_'.length));
      for (const request of receiver.requests) {
        for (const signature of request.headers['webhook-signature']!.split(' ')) expect(log).not.toContain(signature.slice(3));
      }
    } finally {
      t.deps.logger = quiet;
    }
  });

  it('an endpoint failing for 5 days straight is disabled', async () => {
    const { api, webhook } = await endpoint();
    await t.deps.db.webhook.update({ where: { id: webhook.id }, data: { failingSince: new Date(Date.now() - 5 * 24 * 3600_000 - 1000) } });
    receiver.replyNext({ kind: 'status', status: 500 });
    const test = await api.post(`/v1/webhooks/${webhook.id}/test`);
    expect(await settled(api, webhook.id, test.body.id)).toMatchObject({ status: 'failed', attempts: 1 });
    expect((await api.get(`/v1/webhooks/${webhook.id}`)).body).toMatchObject({ enabled: false, disabledReason: 'failing' });
  });
});

function waitForAttempt(deliveryId: string, timeoutMs = 5_000) {
  return waitFor(() => t.deps.db.webhookAttempt.findFirst({ where: { deliveryId } }), timeoutMs, `an attempt for ${deliveryId}`);
}
