import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createWebhook, sendTestEvent } from '@tidings/core';
import { createTestDeps, makeOrganization, spawnService, startWebhookReceiver, waitFor, type WebhookReceiver } from '@tidings/testing';

// A real webhook-worker process (the same entry point `npm start` and docker-compose run), under this file's Redis
// prefix, with a 2 s lock and a 5 s request timeout so a crashed worker's job and its delivery's claim (the timeout
// plus 10 s) are taken over within seconds.
const deps = createTestDeps({ WEBHOOK_ALLOW_LOOPBACK: 'true' });
const children = new Set<ChildProcess>();
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterEach(() => receiver.reset());
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await receiver.close();
  await deps.close();
});

function startWorkerProcess(): ChildProcess {
  const env = { NODE_ENV: 'test', WEBHOOK_ALLOW_LOOPBACK: 'true', WEBHOOK_WORKER_LOCK_MS: '2000', WEBHOOK_WORKER_STALLED_INTERVAL_MS: '1000', WEBHOOK_TIMEOUT_MS: '5000' };
  const child = spawnService(path.resolve(__dirname, '../src/worker.ts'), deps.config, env);
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

const exited = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, signal) => resolve({ code, signal }));
  });

function deliveryWhenSettled(id: string, timeoutMs = 30_000) {
  return waitFor(
    async () => {
      const delivery = await deps.db.webhookDelivery.findUniqueOrThrow({ where: { id } });
      return delivery.status !== 'pending' ? delivery : null;
    },
    timeoutMs,
    `delivery ${id} to leave pending`,
  );
}

async function testDelivery() {
  const { orgId } = await makeOrganization(deps);
  const webhook = await createWebhook(deps, orgId, { url: `${receiver.url}/hook`, events: ['contact.created'] });
  return sendTestEvent(deps, orgId, webhook.id);
}

describe('the webhook-worker process', () => {
  it('killed (SIGKILL) mid-delivery: the restarted worker takes the job over and nothing is lost', async () => {
    receiver.replyNext({ kind: 'hang' });
    const delivery = await testDelivery();
    const first = startWorkerProcess();
    await receiver.waitForRequests(1, 30_000);
    first.kill('SIGKILL');
    expect((await exited(first)).signal).toBe('SIGKILL');
    expect(await deps.db.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } })).toMatchObject({ status: 'pending', attempts: 0 });

    const second = startWorkerProcess();
    const done = await deliveryWhenSettled(delivery.id);
    expect(done).toMatchObject({ status: 'succeeded' });
    // At least once: the interrupted request, then the taken-over one (a busy machine may add a duplicate, which
    // receivers drop by webhook-id), always the same event.
    expect(receiver.requests.length).toBeGreaterThanOrEqual(2);
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([delivery.eventId]));
    second.kill('SIGTERM');
    expect((await exited(second)).code).toBe(0);
  }, 90_000);

  it('SIGTERM lets the delivery in flight finish, then exits 0', async () => {
    receiver.replyNext({ kind: 'slow', delayMs: 1_500 });
    const delivery = await testDelivery();
    const worker = startWorkerProcess();
    await receiver.waitForRequests(1, 30_000);
    worker.kill('SIGTERM');
    expect((await exited(worker)).code).toBe(0);
    expect(await deps.db.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } })).toMatchObject({ status: 'succeeded', attempts: 1 });
  }, 60_000);
});
