import type { Db, Prisma, Reads, Webhook as WebhookRow } from '@tidings/db';
import type { KeyMode } from '@tidings/providers';

/** The organization's endpoint; with `mode`, null for another mode's. */
export async function findOrgWebhook(db: Db, orgId: string, id: string, mode: KeyMode | undefined): Promise<WebhookRow | null> {
  return db.webhook.findFirst({ where: { id, orgId, ...(mode && { mode }) } });
}

export async function countEnabledWebhooks(db: Db, orgId: string): Promise<number> {
  return db.webhook.count({ where: { orgId, enabled: true } });
}

export async function insertWebhook(
  tx: Prisma.TransactionClient,
  row: { id: string; orgId: string; mode: KeyMode; url: string; events: string[]; description: string | null; secretCiphertext: string },
): Promise<WebhookRow> {
  return tx.webhook.create({
    data: {
      id: row.id,
      orgId: row.orgId,
      mode: row.mode,
      url: row.url,
      events: row.events,
      description: row.description,
      secretCiphertext: row.secretCiphertext,
    },
  });
}

/** One page of the organization's endpoints (with `mode`, only that mode's). May be served by a replica. */
export async function listWebhooksPage(
  reads: Reads,
  orgId: string,
  mode: KeyMode | undefined,
  { where, ...page }: { where: Prisma.WebhookWhereInput } & Pick<Prisma.WebhookFindManyArgs, 'orderBy' | 'take' | 'skip'>,
): Promise<WebhookRow[]> {
  return reads.run((db) => db.webhook.findMany({ where: { orgId, ...(mode && { mode }), ...where }, ...page }));
}

export async function updateWebhookSettings(tx: Prisma.TransactionClient, id: string, data: Prisma.WebhookUpdateInput): Promise<WebhookRow> {
  return tx.webhook.update({ where: { id }, data });
}

/** Disables the endpoint by a person's (or key's) hand: reason `manual`. */
export async function disableWebhookManually(tx: Prisma.TransactionClient, id: string, disabledAt: Date): Promise<WebhookRow> {
  return tx.webhook.update({ where: { id }, data: { enabled: false, disabledReason: 'manual', disabledAt } });
}

/** Stores a new secret, keeping the one it replaces as the previous one until `previousSecretExpiresAt`. */
export async function replaceWebhookSecret(
  tx: Prisma.TransactionClient,
  id: string,
  secrets: { secretCiphertext: string; previousSecretCiphertext: string; previousSecretExpiresAt: Date },
): Promise<WebhookRow> {
  return tx.webhook.update({
    where: { id },
    data: {
      secretCiphertext: secrets.secretCiphertext,
      previousSecretCiphertext: secrets.previousSecretCiphertext,
      previousSecretExpiresAt: secrets.previousSecretExpiresAt,
    },
  });
}

/** The organization's endpoints disabled automatically (a 410, or failing for days) since `since`, the latest first. */
export async function listAutoDisabledWebhookRows(db: Db, orgId: string, since: Date, limit: number): Promise<WebhookRow[]> {
  return db.webhook.findMany({
    where: { orgId, enabled: false, disabledReason: { in: ['gone', 'failing'] }, disabledAt: { gte: since } },
    orderBy: { disabledAt: 'desc' },
    take: limit,
  });
}
