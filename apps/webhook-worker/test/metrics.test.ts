import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createWebhook, sendTestEvent } from '@tidings/core';
import { createTestDeps, freePort, makeOrganization, sampleValue, spawnService, startWebhookReceiver, waitFor, type WebhookReceiver } from '@tidings/testing';

// The webhook-worker process as operators run it, scraped on its metrics port after deliveries to a real receiver.
const deps = createTestDeps({ WEBHOOK_ALLOW_LOOPBACK: 'true' });
let receiver: WebhookReceiver;
let child: ChildProcess;
let port: number;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  port = await freePort();
  const env = { NODE_ENV: 'test', WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '100', WEBHOOK_WORKER_METRICS_PORT: String(port) };
  child = spawnService(path.resolve(__dirname, '../src/worker.ts'), deps.config, env, ['ignore', 'ignore', 'inherit']);
});
afterAll(async () => {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await receiver.close();
  await deps.close();
});

const get = (pathname: string) => fetch(`http://127.0.0.1:${port}${pathname}`);

function settled(deliveryId: string) {
  return waitFor(
    async () => {
      const delivery = await deps.db.webhookDelivery.findUniqueOrThrow({ where: { id: deliveryId } });
      return delivery.status !== 'pending' ? delivery : null;
    },
    30_000,
    `delivery ${deliveryId} to leave pending`,
  );
}

describe('the webhook-worker process', () => {
  it('counts deliveries by outcome and measures its jobs on /metrics', async () => {
    const { orgId } = await makeOrganization(deps);
    const webhook = await createWebhook(deps, orgId, { url: `${receiver.url}/hook`, events: ['contact.created'] });
    // the first delivery fails once and succeeds on its retry; the second is refused for good (no retries left)
    receiver.replyNext({ kind: 'status', status: 500 });
    const retried = await sendTestEvent(deps, orgId, webhook.id);
    expect(await settled(retried.id)).toMatchObject({ status: 'succeeded', attempts: 2 });
    receiver.replyNext({ kind: 'status', status: 500 }, { kind: 'status', status: 500 });
    const failed = await sendTestEvent(deps, orgId, webhook.id);
    expect(await settled(failed.id)).toMatchObject({ status: 'failed', attempts: 2 });

    const response = await get('/metrics');
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await response.text();
    const deliveries = (outcome: string) => sampleValue(text, 'tidings_webhook_deliveries_total', { outcome });
    expect([deliveries('succeeded'), deliveries('retrying'), deliveries('failed')]).toEqual([1, 2, 1]);
    // one job per delivery, parked between attempts: latency once per job, a run per attempt
    expect(sampleValue(text, 'tidings_job_latency_seconds_count', { queue: 'webhooks' })).toBe(2);
    const runs = (outcome: string) => sampleValue(text, 'tidings_job_duration_seconds_count', { queue: 'webhooks', outcome });
    expect([runs('completed'), runs('delayed')]).toEqual([2, 2]);
    expect(sampleValue(text, 'tidings_queue_jobs', { queue: 'webhooks', state: 'delayed' })).toBe(0);
    expect(sampleValue(text, 'tidings_outbox_backlog')).toEqual(expect.any(Number));
    expect(sampleValue(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  }, 60_000);

  it('answers /healthz and /readyz, and on SIGTERM closes its port and exits 0', async () => {
    expect(await (await get('/healthz')).json()).toEqual({ status: 'ok' });
    const ready = await get('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok' } });
    const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    await expect(get('/healthz')).rejects.toThrow();
  });
});
