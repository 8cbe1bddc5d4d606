import { toContact } from '../contacts/contact-fields.ts';
import { findContactOrg, unsubscribeContactFromChannel } from '../contacts/contact.store.ts';
import { syncUnsubscribes } from '../contacts/subscription-suppressions.ts';
import type { Deps } from '../deps.ts';
import { AppError, foundOr404 } from '../errors.ts';
import { recordEvents } from '../events.ts';
import { unitOfWork } from '../unit-of-work.ts';
import { findOrganizationName } from '../organizations/organization.store.ts';
import { findTopicName, unsubscribeContactFromTopic } from '../topics/topic.store.ts';
import { countBroadcastUnsubscribe, findUnsubscribeBroadcast, suppressTestRecipient } from './broadcast.store.ts';
import { readUnsubscribeToken } from './unsubscribe-token.ts';

export type UnsubscribeTarget = {
  contactId: string;
  broadcastId: string;
  orgId: string;
  /** Named on the unsubscribe and preference pages, so the reader knows who is writing. */
  orgName: string;
  channelType: 'email' | 'sms';
  mode: 'live' | 'test';
  /** The broadcast's topic while it exists: its link then unsubscribes from that topic only. */
  topic: { id: string; name: string } | null;
};

/**
 * What an unsubscribe (or, with `purpose` 'preferences', a preference page) token points at: a contact and the
 * broadcast it came with, in the same organization. NOT_FOUND for a token this server did not sign (malformed,
 * tampered, signed for the other purpose) or whose contact or broadcast is gone or of another organization.
 * @example const target = await findUnsubscribeTarget(deps, token);
 */
export async function findUnsubscribeTarget(deps: Pick<Deps, 'db' | 'config'>, token: string, purpose: 'unsubscribe' | 'preferences' = 'unsubscribe'): Promise<UnsubscribeTarget> {
  const subject = foundOr404(readUnsubscribeToken(deps.config.broadcasts.unsubscribeSecret, token, purpose), 'Unsubscribe link');
  const [broadcast, contact] = await Promise.all([findUnsubscribeBroadcast(deps.db, subject.broadcastId), findContactOrg(deps.db, subject.contactId)]);
  if (!broadcast || !contact || broadcast.orgId !== contact.orgId) throw new AppError('NOT_FOUND', 'Unsubscribe link not found');
  const [organization, topic] = await Promise.all([
    findOrganizationName(deps.db, broadcast.orgId),
    broadcast.topicId ? findTopicName(deps.db, broadcast.orgId, broadcast.topicId) : null,
  ]);
  return { ...subject, orgId: broadcast.orgId, orgName: organization?.name ?? '', channelType: broadcast.channelType, mode: broadcast.mode, topic };
}

/**
 * The one-click unsubscribe (RFC 8058): the contact's subscription to the broadcast's channel ends at once, the
 * address goes on the suppression list (`unsubscribed`), the broadcast counts it and `contact.unsubscribed` is
 * recorded, all in one transaction. Repeating it changes nothing more. NOT_FOUND as `findUnsubscribeTarget`.
 * A broadcast to a topic unsubscribes from that topic only (the contact stays subscribed to the channel and to its
 * other topics); once the topic is deleted, from the channel. A test broadcast's link (its messages went to the
 * sandbox) puts the address on the test list only: the contact is shared with live sends and stays subscribed.
 * @example await unsubscribe(deps, token) // { changed: true, target: { orgName: 'Acme', topic: null, ... } }
 */
export async function unsubscribe(deps: Deps, token: string): Promise<{ changed: boolean; target: UnsubscribeTarget }> {
  const target = await findUnsubscribeTarget(deps, token);
  return { ...(await unsubscribeTarget(deps, target)), target };
}

async function unsubscribeTarget(deps: Deps, target: UnsubscribeTarget): Promise<{ changed: boolean }> {
  if (target.mode === 'test') return unsubscribeFromTestBroadcast(deps, target);
  if (target.topic) return unsubscribeFromTopic(deps, target, target.topic.id);
  const flag = target.channelType === 'email' ? 'emailSubscribed' : 'smsSubscribed';
  const now = deps.now();
  return unitOfWork(deps, async (tx, outbox) => {
    const contact = await unsubscribeContactFromChannel(tx, target.orgId, target.contactId, { flag, now });
    if (!contact) return { changed: false };
    await syncUnsubscribes(tx, target.orgId, [contact], []);
    await countBroadcastUnsubscribe(tx, target.broadcastId);
    outbox.add(await recordEvents(tx, [{ orgId: target.orgId, type: 'contact.unsubscribed', data: toContact(contact) }]));
    return { changed: true };
  });
}

/**
 * A topic broadcast's one-click unsubscribe: the contact's choice for the topic becomes false (if it was in the
 * topic, by choice or by an `opt_out` default), counted once by the broadcast, with `contact.updated`; one statement
 * decides, so a repeated POST changes nothing.
 */
async function unsubscribeFromTopic(deps: Deps, target: UnsubscribeTarget, topicId: string): Promise<{ changed: boolean }> {
  const now = deps.now();
  return unitOfWork(deps, async (tx, outbox) => {
    const contact = await unsubscribeContactFromTopic(tx, target.orgId, target.contactId, { topicId, now });
    if (!contact) return { changed: false };
    await countBroadcastUnsubscribe(tx, target.broadcastId);
    outbox.add(await recordEvents(tx, [{ orgId: target.orgId, type: 'contact.updated', data: toContact(contact) }]));
    return { changed: true };
  });
}

/** The test broadcast's unsubscribe: a test suppression of the contact's address, counted once by the broadcast. */
export async function unsubscribeFromTestBroadcast({ db }: Pick<Deps, 'db'>, target: UnsubscribeTarget): Promise<{ changed: boolean }> {
  const row = await suppressTestRecipient(db, target);
  return { changed: row?.changed ?? false };
}
