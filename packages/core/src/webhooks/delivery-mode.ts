import type { Prisma } from '@tidings/db';
import type { KeyMode } from '@tidings/providers';

/**
 * The deliveries a key of `mode` may see: those about its own mode's messages and broadcasts, and those about
 * anything else (contacts, domains...). Without a mode (the dashboard) all of them.
 * @example db.webhookDelivery.findMany({ where: { webhookId, AND: [visibleToMode('test')] } })
 */
export function visibleToMode(mode: KeyMode | undefined): Prisma.WebhookDeliveryWhereInput {
  return mode ? { OR: [{ mode: null }, { mode }] } : {};
}
