import type { OrgContext } from '../request-context.ts';
import type { CreateWebhookBody, ListQuery, ListWebhookEventsQuery, UpdateWebhookBody, Webhook, WebhookDelivery, WebhookDetail, WebhookWithSecret } from '@tidings/contracts';
import type { Db, Webhook as WebhookRow } from '@tidings/db';
import { checkWebhookUrl, encryptSecret, generateWebhookSecret, UnsafeUrlError } from '@tidings/webhooks';
import type { KeyMode } from '@tidings/providers';
import { auditedChange } from '../audit/audit-log.ts';
import type { Deps } from '../deps.ts';
import { AppError, foundOr404 } from '../errors.ts';
import { recordEvents } from '../events.ts';
import { newId } from '../ids.ts';
import { unitOfWork } from '../unit-of-work.ts';
import { paginate, type Page } from '../pagination.ts';
import { getDeliveryWithLastAttempt, listDeliveriesPage, listRecentDeliveries } from './webhook-delivery.store.ts';
import { toDelivery, toWebhook } from './webhook-mappers.ts';
import {
  countEnabledWebhooks,
  disableWebhookManually,
  findOrgWebhook,
  insertWebhook,
  listAutoDisabledWebhookRows,
  listWebhooksPage,
  replaceWebhookSecret,
  updateWebhookSettings,
} from './webhook.store.ts';

/** How long the previous secret keeps signing after a rotation. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;
const RECENT_DELIVERIES = 20;

/** Refuses a URL that is not http(s), or whose host resolves to a non-public address: 400 naming `url`. */
async function assertSafeUrl({ config }: Pick<Deps, 'config'>, url: string): Promise<void> {
  try {
    await checkWebhookUrl(url, { allowLoopback: config.webhookAllowLoopback, requireHttps: config.env === 'production' });
  } catch (error) {
    if (error instanceof UnsafeUrlError) throw new AppError('BAD_REQUEST', error.message);
    throw error;
  }
}

/**
 * The organization's endpoint; with `mode` (an API key's) only one of that mode: another mode's endpoint is
 * NOT_FOUND, as another organization's is.
 * @example const webhook = await findWebhook(deps.db, orgId, 'whk_...', 'test');
 */
export async function findWebhook(db: Db, orgId: string, id: string, mode?: KeyMode): Promise<WebhookRow> {
  return foundOr404(await findOrgWebhook(db, orgId, id, mode), 'Webhook');
}

/**
 * An organization has at most WEBHOOK_ENDPOINTS_PER_ORG enabled endpoints (each multiplies every event it subscribes
 * to): 409 for one more. Two requests at the same instant may both pass; the limit is against abuse, not exact.
 */
async function assertRoomForEndpoint(deps: Deps, orgId: string): Promise<void> {
  const limit = deps.config.webhooks.endpointsPerOrg;
  if ((await countEnabledWebhooks(deps.db, orgId)) >= limit) {
    throw new AppError(
      'CONFLICT',
      `This organization already has ${limit} enabled webhook endpoints, the most it may have; delete (disable) one before adding or enabling another.`,
    );
  }
}

/**
 * webhook.create: the endpoint has `mode` (the key's; live when not given) and receives only that mode's message and
 * broadcast events. The secret is returned here only; it is stored encrypted. 409 past the endpoints limit.
 */
export async function createWebhook(deps: Deps, orgId: string, input: CreateWebhookBody, mode: KeyMode = 'live'): Promise<WebhookWithSecret> {
  await assertSafeUrl(deps, input.url);
  await assertRoomForEndpoint(deps, orgId);
  const secret = generateWebhookSecret();
  const id = newId('whk');
  const row = await auditedChange(deps, { orgId, action: 'webhook.created', targetId: id }, (tx) =>
    insertWebhook(tx, {
      id,
      orgId,
      mode,
      url: input.url,
      events: input.events,
      description: input.description ?? null,
      secretCiphertext: encryptSecret(secret, deps.config.webhooks.secretKey),
    }),
  );
  return { ...toWebhook(row, deps.now()), secret };
}

/** webhook.list: the organization's endpoints (disabled ones too; with `mode`, only that mode's), newest first. */
export async function listWebhooks({ reads, now }: Pick<Deps, 'reads' | 'now'>, orgId: string, query: ListQuery, mode?: KeyMode): Promise<Page<Webhook>> {
  return paginate(
    query,
    (page) => listWebhooksPage(reads, orgId, mode, page),
    (row) => toWebhook(row, now()),
  );
}

/** webhook.get: the endpoint and its last 20 deliveries (with `mode`, an API key's: those it may see). */
export async function getWebhook({ db, now }: Deps, orgId: string, id: string, mode?: KeyMode): Promise<WebhookDetail> {
  const row = await findWebhook(db, orgId, id, mode);
  const recent = await listRecentDeliveries(db, row.id, mode, RECENT_DELIVERIES);
  return { ...toWebhook(row, now()), recentEvents: recent.map(toDelivery) };
}

/**
 * webhook.update: url (checked again), events, description, enabled (true re-enables and forgets past failures; 409
 * past the endpoints limit); with `mode`, only that mode's endpoint.
 */
export async function updateWebhook({ deps, orgId, mode }: OrgContext, id: string, input: UpdateWebhookBody): Promise<Webhook> {
  const current = await findWebhook(deps.db, orgId, id, mode);
  if (input.url !== undefined && input.url !== current.url) await assertSafeUrl(deps, input.url);
  const enabling = input.enabled === true && !current.enabled;
  const disabling = input.enabled === false && current.enabled;
  if (enabling) await assertRoomForEndpoint(deps, orgId);
  const row = await auditedChange(deps, { orgId, action: 'webhook.updated', targetId: current.id }, (tx) =>
    updateWebhookSettings(tx, current.id, {
      url: input.url,
      events: input.events,
      description: input.description,
      ...(enabling ? { enabled: true, disabledReason: null, disabledAt: null, failingSince: null } : {}),
      ...(disabling ? { enabled: false, disabledReason: 'manual', disabledAt: deps.now() } : {}),
    }),
  );
  return toWebhook(row, deps.now());
}

/** webhook.delete: disables the endpoint (nothing is delivered to it again); the record and its history stay. */
export async function disableWebhook(deps: Deps, orgId: string, id: string, mode?: KeyMode): Promise<Webhook> {
  const current = await findWebhook(deps.db, orgId, id, mode);
  if (!current.enabled) return toWebhook(current, deps.now());
  const row = await auditedChange(deps, { orgId, action: 'webhook.deleted', targetId: current.id }, (tx) => disableWebhookManually(tx, current.id, deps.now()));
  return toWebhook(row, deps.now());
}

/** webhook.rotateSecret: a new secret, shown once; the one it replaces also signs for 24 h. */
export async function rotateWebhookSecret(deps: Deps, orgId: string, id: string, mode?: KeyMode): Promise<WebhookWithSecret> {
  const current = await findWebhook(deps.db, orgId, id, mode);
  const secret = generateWebhookSecret();
  const row = await auditedChange(deps, { orgId, action: 'webhook.secretRotated', targetId: current.id }, (tx) =>
    replaceWebhookSecret(tx, current.id, {
      secretCiphertext: encryptSecret(secret, deps.config.webhooks.secretKey),
      // Only the secret just replaced overlaps; one from an earlier rotation stops now.
      previousSecretCiphertext: current.secretCiphertext,
      previousSecretExpiresAt: new Date(deps.now().getTime() + SECRET_OVERLAP_MS),
    }),
  );
  return { ...toWebhook(row, deps.now()), secret };
}

/** webhook.test: a `webhook.test` event for this endpoint only, delivered now; returns the pending delivery. */
export async function sendTestEvent(deps: Deps, orgId: string, id: string, mode?: KeyMode): Promise<WebhookDelivery> {
  const current = await findWebhook(deps.db, orgId, id, mode);
  const notEnabled = () => new AppError('BAD_REQUEST', 'Webhook is disabled; enable it (webhook.update with enabled: true) to test it');
  if (!current.enabled) throw notEnabled();
  const jobs = await unitOfWork(deps, async (tx, outbox) => {
    const jobs = await recordEvents(tx, [{ orgId, type: 'webhook.test', data: toWebhook(current, deps.now()), webhookId: current.id }]);
    outbox.add(jobs);
    return jobs;
  });
  // Disabled between the read and the insert: no delivery was made.
  if (jobs.length === 0) throw notEnabled();
  const delivery = await getDeliveryWithLastAttempt(deps.db, jobs[0]!.jobId);
  return toDelivery(delivery);
}

/**
 * webhook.listEvents: the deliveries of this endpoint, newest first, optionally of one status; with `mode` (an API
 * key's) none about another mode's messages or broadcasts.
 */
export async function listWebhookDeliveries(
  { deps: { db }, orgId, mode }: OrgContext<Pick<Deps, 'db'>>,
  id: string,
  query: ListWebhookEventsQuery,
): Promise<Page<WebhookDelivery>> {
  const webhook = await findWebhook(db, orgId, id, mode);
  return paginate(query, (page) => listDeliveriesPage(db, webhook.id, { status: query.status, mode }, page), toDelivery);
}

/**
 * Endpoints disabled automatically (a 410, or failing for days) since `since`, the latest first: the dashboard tells
 * the organization's people about them.
 * @example const recent = await listAutoDisabledWebhooks(deps, orgId, new Date(Date.now() - 7 * 86_400_000));
 */
export async function listAutoDisabledWebhooks({ db, now }: Deps, orgId: string, since: Date, limit = 5): Promise<Webhook[]> {
  const rows = await listAutoDisabledWebhookRows(db, orgId, since, limit);
  return rows.map((row) => toWebhook(row, now()));
}
