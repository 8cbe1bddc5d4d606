import { backoffDelayMs, loadDeliveryWork, recordAttempt, releaseDeliveryClaim, type Deps } from '@tidings/core';
import { laneOfQueue, takeTurnAgain, type JobData, type WebhookQueue } from '@tidings/queue';
import { inSpan, SpanKind, traceHeaders } from '@tidings/runtime';
import { postWebhook, signatureHeaders, type Resolver } from '@tidings/webhooks';
import { DelayedError, type Job } from 'bullmq';
import { endpointSlots, WAKE_DELAY_MS, type EndpointSlots } from './endpoint-slots.ts';

export type DeliverOptions = {
  /** DNS for the SSRF check; the system resolver unless a test plays DNS. */
  resolve?: Resolver;
  /** The per-endpoint slots; by default those of `deps` (one set per worker process, shared by its lanes). */
  slots?: EndpointSlots;
};

/**
 * The processor of the `webhooks` queue: loads the delivery (the job carries only its id), signs the event with
 * every active secret, POSTs it SSRF-safely, records the attempt, and for a retry moves this same job to the
 * delayed set until the next attempt is due (so one job per delivery, jobId = deliveryId, all the way).
 * @example new Worker('webhooks', deliverWebhook(deps), { connection, prefix });
 */
export const deliverWebhook = (deps: Deps, options: DeliverOptions = {}) => {
  const slots = options.slots ?? endpointSlots(deps);
  return async (job: Job<JobData['webhooks']>, token?: string): Promise<void> => {
    try {
      await attempt(deps, options, slots, job, token);
    } catch (error) {
      if (error instanceof DelayedError) throw error;
      // Postgres unreachable, or similar: the delivery is still pending in the database; try again shortly rather
      // than let BullMQ drop the job as failed.
      deps.logger.error({ deliveryId: job.data.deliveryId, err: error }, 'webhook delivery crashed; trying again later');
      await delayUntil(deps, job, new Date(Date.now() + backoffDelayMs(job.attemptsStarted, CRASH_BACKOFF)), token);
    }
  };
};

/** Our own failures come back soon (a dropped connection is usually back within seconds), then less often. */
const CRASH_BACKOFF = { baseMs: 500, maxMs: 30_000 };
const METRIC_OUTCOME = { succeeded: 'succeeded', retry: 'retrying', failed: 'failed', disabled: 'disabled' } as const;

async function attempt(deps: Deps, options: DeliverOptions, slots: EndpointSlots, job: Job<JobData['webhooks']>, token?: string): Promise<void> {
  const { deliveryId } = job.data;
  const slotId = job.id ?? deliveryId;
  // a job parked before knows its endpoint: it looks at the slots first, in Redis only, so that an endpoint's
  // backlog waking up again costs neither a claim nor its release in Postgres
  const known = job.data.webhookId;
  if (known && !(await slots.acquire(known, slotId))) return park(deps, slots, job, { webhookId: known, orgId: job.data.orgId }, slotId, token);

  let work: Awaited<ReturnType<typeof loadDeliveryWork>>;
  try {
    work = await loadDeliveryWork(deps, deliveryId, { createdAt: job.data.createdAt, lane: laneOfQueue(job.queueName as WebhookQueue) });
  } catch (error) {
    if (known) await freeSlot(deps, slots, known, slotId);
    throw error;
  }
  // a slot taken above with nothing to deliver after all: free it at once (a delivery's endpoint never changes)
  if (known && work.kind !== 'deliver') await freeSlot(deps, slots, known, slotId);
  if (work.kind === 'done') {
    deps.logger.debug({ deliveryId, reason: work.reason }, 'webhook delivery needs nothing');
    return;
  }
  if (work.kind === 'notYet') return delayUntil(deps, job, work.at, token);

  // the endpoint at its cap: give the claim back and park until a slot frees (or one lease, whichever comes first)
  if (!known && !(await slots.acquire(work.webhookId, slotId))) {
    await releaseDeliveryClaim(deps, work);
    return park(deps, slots, job, work, slotId, token);
  }
  // the slot is the endpoint's: freed as soon as it answered (or the POST failed), not after recording the attempt
  const postedAt = Date.now();
  slots.began(work.webhookId, slotId);
  let freeing: Promise<void> | undefined;
  const free = () => (freeing ??= freeSlot(deps, slots, work.webhookId, slotId, Date.now() - postedAt));
  let outcome: Awaited<ReturnType<typeof recordAttempt>>;
  try {
    outcome = await post(deps, options, work, free);
  } finally {
    await free();
  }
  if (outcome.kind === 'retry') {
    // its retry, too, looks at the slots before Postgres (an endpoint that hangs is retried while it is full)
    await remember(job, work);
    return delayUntil(deps, job, outcome.at, token);
  }
}

/** The job's endpoint and organization kept in its data, for its next runs (`orgId` absent from jobs of earlier versions). */
type Known = { webhookId: string; orgId?: string };

async function remember(job: Job<JobData['webhooks']>, { webhookId, orgId }: Known): Promise<void> {
  if (job.data.webhookId !== webhookId || (orgId && job.data.orgId !== orgId)) await job.updateData({ ...job.data, webhookId, ...(orgId ? { orgId } : {}) });
}

/**
 * Before the job waits again: a fresh turn of its organization, so that it comes back behind what other
 * organizations added meanwhile (the turn it was added with is ahead of everything by then: a burst's parked
 * deliveries would all cut in front of another organization's next one).
 */
async function turnAgain(deps: Deps, job: Job<JobData['webhooks']>, orgId = job.data.orgId): Promise<void> {
  if (!orgId) return;
  // best effort: without it the job comes back in its old turn
  await takeTurnAgain(deps.redis, deps.queues[job.queueName as WebhookQueue], job, orgId).catch((error) =>
    deps.logger.warn({ deliveryId: job.data.deliveryId, err: error }, 'taking a fresh turn failed'),
  );
}

/** Delays the job for one lease and parks it in its endpoint's list, where the release of a slot wakes it. */
async function park(deps: Deps, slots: EndpointSlots, job: Job<JobData['webhooks']>, known: Known, slotId: string, token?: string): Promise<never> {
  const { webhookId } = known;
  deps.metrics.webhookDeliveries.inc({ outcome: 'parked' });
  await remember(job, known);
  await turnAgain(deps, job, known.orgId);
  // woken by the release that hands it a slot; unwoken, it looks again after a lease, when every slot has freed
  await job.moveToDelayed(Date.now() + slots.leaseMs, token);
  // parked once delayed, so that the release that wakes it finds it delayed; a slot freed meanwhile: wake it now
  if (!(await slots.park(webhookId, job.queueName as WebhookQueue, slotId))) await job.changeDelay(WAKE_DELAY_MS);
  throw new DelayedError();
}

/** Frees the slot (handing it to the first parked job); a failure is left to the lease. */
async function freeSlot(deps: Deps, slots: EndpointSlots, webhookId: string, slotId: string, deliveryMs?: number): Promise<void> {
  await slots.release(webhookId, slotId, deliveryMs).catch((error) => deps.logger.warn({ slotId, err: error }, 'freeing an endpoint slot failed; its lease ends it'));
}

/** Signs and POSTs one delivery, calls `answered` (not awaited) once the POST ended, records the attempt, and returns its outcome. */
async function post(deps: Deps, options: DeliverOptions, work: DeliverWork, answered: () => Promise<void>): Promise<Awaited<ReturnType<typeof recordAttempt>>> {
  const { deliveryId } = work;

  const headers = signatureHeaders({
    secrets: work.secrets,
    id: work.messageId,
    timestampSeconds: Math.floor(deps.now().getTime() / 1000),
    body: work.body,
  });
  // the span names the endpoint by id, not URL (a customer's URL may carry a token); the body and secrets stay out
  const attributes = { 'tidings.delivery_id': deliveryId, 'tidings.webhook_id': work.webhookId, 'tidings.org_id': work.orgId, 'tidings.attempt': work.attempts + 1 };
  const result = await inSpan('webhook.deliver', SpanKind.CLIENT, attributes, async (span) => {
    // traceparent lets a customer who traces join our trace; empty when tracing is off
    const posted = await postWebhook(work.url, {
      body: work.body,
      headers: { ...headers, ...traceHeaders() },
      timeoutMs: deps.config.webhooks.timeoutMs,
      allowLoopback: deps.config.webhookAllowLoopback,
      requireHttps: deps.config.env === 'production',
      resolve: options.resolve,
    });
    span?.setAttributes({
      'tidings.outcome': posted.refused ? 'refused' : posted.ok ? 'succeeded' : 'failed',
      ...(posted.statusCode !== null ? { 'http.response.status_code': posted.statusCode } : {}),
    });
    return posted;
  });
  void answered();
  const outcome = await recordAttempt(deps, work, result);
  deps.metrics.webhookDeliveries.inc({ outcome: result.refused ? 'refused' : METRIC_OUTCOME[outcome.kind] });

  const context = { deliveryId, webhookId: work.webhookId, orgId: work.orgId, attempt: work.attempts + 1, statusCode: result.statusCode };
  if (outcome.kind === 'disabled' && outcome.reason === 'failing') {
    deps.logger.warn({ ...context, failingSince: work.failingSince }, 'webhook endpoint disabled: it has been failing for 5 days straight');
  } else if (outcome.kind === 'disabled') {
    deps.logger.warn(context, 'webhook endpoint disabled: it answered 410 Gone');
  } else {
    deps.logger.info({ ...context, outcome: outcome.kind, error: result.error, durationMs: result.durationMs }, 'webhook delivery attempt');
  }
  return outcome;
}

type DeliverWork = Extract<Awaited<ReturnType<typeof loadDeliveryWork>>, { kind: 'deliver' }>;

/**
 * Parks this job until `at`, with a fresh turn; BullMQ runs it again then. DelayedError tells the worker the job is
 * not finished.
 */
async function delayUntil(deps: Deps, job: Job<JobData['webhooks']>, at: Date, token: string | undefined): Promise<never> {
  await turnAgain(deps, job);
  await job.moveToDelayed(at.getTime(), token);
  throw new DelayedError();
}
