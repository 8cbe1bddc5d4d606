import { Prisma, type Contact as ContactRow } from '@tidings/db';
import { toContact } from '../contacts/contact-fields.ts';
import { syncUnsubscribes } from '../contacts/subscription-suppressions.ts';
import type { Deps } from '../deps.ts';
import { AppError, foundOr404 } from '../errors.ts';
import { recordEvents } from '../events.ts';
import { dispatchOutbox } from '../outbox.ts';
import { readUnsubscribeToken } from './unsubscribe-token.ts';

export type UnsubscribeTarget = { contactId: string; broadcastId: string; orgId: string; channelType: 'email' | 'sms'; mode: 'live' | 'test' };

/**
 * What an unsubscribe token points at: a contact and the broadcast it came with, in the same organization. NOT_FOUND
 * for a token this server did not sign (malformed, tampered) or whose contact or broadcast is gone.
 * @example const target = await findUnsubscribeTarget(deps, token);
 */
export async function findUnsubscribeTarget(deps: Pick<Deps, 'db' | 'config'>, token: string): Promise<UnsubscribeTarget> {
  const subject = foundOr404(readUnsubscribeToken(deps.config.broadcasts.unsubscribeSecret, token), 'Unsubscribe link');
  const [broadcast, contact] = await Promise.all([
    deps.db.broadcast.findUnique({ where: { id: subject.broadcastId }, select: { orgId: true, channelType: true, mode: true } }),
    deps.db.contact.findUnique({ where: { id: subject.contactId }, select: { orgId: true } }),
  ]);
  if (!broadcast || !contact || broadcast.orgId !== contact.orgId) throw new AppError('NOT_FOUND', 'Unsubscribe link not found');
  return { ...subject, orgId: broadcast.orgId, channelType: broadcast.channelType, mode: broadcast.mode };
}

/**
 * The one-click unsubscribe (RFC 8058): the contact's subscription to the broadcast's channel ends at once, the
 * address goes on the suppression list (`unsubscribed`), the broadcast counts it and `contact.unsubscribed` is
 * recorded, all in one transaction. Repeating it changes nothing more. NOT_FOUND as `findUnsubscribeTarget`.
 * A test broadcast's link (its messages went to the sandbox) puts the address on the test list only: the contact is
 * shared with live sends and stays subscribed.
 * @example await unsubscribe(deps, token) // { changed: true }
 */
export async function unsubscribe(deps: Deps, token: string): Promise<{ changed: boolean }> {
  const target = await findUnsubscribeTarget(deps, token);
  if (target.mode === 'test') return unsubscribeFromTestBroadcast(deps, target);
  const flag = target.channelType === 'email' ? 'emailSubscribed' : 'smsSubscribed';
  const now = deps.now();
  const outbox = await deps.db.$transaction(async (tx) => {
    const [contact] = (await tx.contact.updateManyAndReturn({
      where: { id: target.contactId, orgId: target.orgId, [flag]: true },
      data: { [flag]: false, updatedAt: now },
    })) as ContactRow[];
    if (!contact) return null;
    await syncUnsubscribes(tx, target.orgId, [contact], []);
    await tx.broadcast.update({ where: { id: target.broadcastId }, data: { unsubscribedCount: { increment: 1 } } });
    return recordEvents(tx, [{ orgId: target.orgId, type: 'contact.unsubscribed', data: toContact(contact) }]);
  });
  if (outbox) await dispatchOutbox(deps, outbox);
  return { changed: outbox !== null };
}

/** The test broadcast's unsubscribe: a test suppression of the contact's address, counted once by the broadcast. */
async function unsubscribeFromTestBroadcast({ db }: Pick<Deps, 'db'>, target: UnsubscribeTarget): Promise<{ changed: boolean }> {
  const address = Prisma.raw(target.channelType === 'email' ? '"email"' : '"phone"');
  const [row] = await db.$queryRaw<{ changed: boolean }[]>`
    WITH suppressed AS (
      INSERT INTO "Suppression" ("orgId", "recipient", "mode", "reason", "createdAt")
      SELECT "orgId", ${address}, 'test', 'unsubscribed', now() AT TIME ZONE 'UTC' FROM "Contact"
      WHERE "id" = ${target.contactId} AND "orgId" = ${target.orgId} AND ${address} IS NOT NULL
      ON CONFLICT DO NOTHING RETURNING 1),
    counted AS (
      UPDATE "Broadcast" SET "unsubscribedCount" = "unsubscribedCount" + 1 WHERE "id" = ${target.broadcastId} AND EXISTS (SELECT 1 FROM suppressed))
    SELECT EXISTS (SELECT 1 FROM suppressed) AS "changed"`;
  return { changed: row?.changed ?? false };
}
