import type { Prisma } from '@tidings/db';
import { findUnsubscribeTarget, unsubscribeFromTestBroadcast, type UnsubscribeTarget } from '../broadcasts/unsubscribe.ts';
import { toContact } from '../contacts/contact-fields.ts';
import { findContact, lockContact, updateContactRow } from '../contacts/contact.store.ts';
import { syncUnsubscribes } from '../contacts/subscription-suppressions.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { recordEvents, type EventType } from '../events.ts';
import { unitOfWork } from '../unit-of-work.ts';
import { isInTopic } from './contact-topics.ts';
import { listPublicTopics, selectPublicTopicIds } from './topic.store.ts';

/** Public topics shown on one preference page, at most. */
const MAX_PAGE_TOPICS = 200;

/** What the preference page shows: whose page, the channel's subscription and each public topic's state. */
export type Preferences = {
  orgName: string;
  channelType: 'email' | 'sms';
  /** A test broadcast's link: the page shows the contact's choices but saves none (a test never changes live data). */
  isTest: boolean;
  /** Subscribed to the broadcast's channel at all. */
  subscribed: boolean;
  topics: { id: string; name: string; description: string | null; subscribed: boolean }[];
};

/** What the preference form sends: the topics it showed and which of them stay ticked, or one of the two buttons. */
export type PreferenceChoice = { action: 'save'; shownTopicIds: string[]; subscribedTopicIds: string[] } | { action: 'unsubscribe-all' } | { action: 'resubscribe' };

const flagOf = (target: UnsubscribeTarget) => (target.channelType === 'email' ? 'emailSubscribed' : 'smsSubscribed');

/** The page's content for a target, in two queries (the contact, the public topics). */
async function preferencesOf({ db }: Pick<Deps, 'db'>, target: UnsubscribeTarget): Promise<Preferences> {
  const [contact, topics] = await Promise.all([findContact(db, target.orgId, target.contactId), listPublicTopics(db, target.orgId, MAX_PAGE_TOPICS)]);
  if (!contact) throw new AppError('NOT_FOUND', 'Preference link not found');
  return {
    orgName: target.orgName,
    channelType: target.channelType,
    isTest: target.mode === 'test',
    subscribed: contact[flagOf(target)],
    topics: topics.map((t) => ({ id: t.id, name: t.name, description: t.description, subscribed: isInTopic(contact.topics, t) })),
  };
}

/**
 * The preference page of a signed `/p/{token}` link. NOT_FOUND for a token this server did not sign (an unsubscribe
 * token included), or whose contact or broadcast is gone or of another organization.
 * @example const page = await findPreferences(deps, token) // { orgName: 'Acme', topics: [{ name: 'Product news', subscribed: true }], ... }
 */
export async function findPreferences(deps: Pick<Deps, 'db' | 'config'>, token: string): Promise<Preferences> {
  return preferencesOf(deps, await findUnsubscribeTarget(deps, token, 'preferences'));
}

/**
 * Saves the preference form, in one transaction with `contact.updated` (and `contact.unsubscribed` when it ends the
 * channel's subscription). `save` sets each topic the page showed (and only those, public ones of the organization)
 * to ticked or not; `unsubscribe-all` ends the subscription to the broadcast's channel (an `unsubscribed`
 * suppression); `resubscribe` lifts it (only that suppression, never a bounce or complaint). A test broadcast's link
 * changes no contact: `unsubscribe-all` puts the address on the test list, as its unsubscribe link does.
 * @example await savePreferences(deps, token, { action: 'save', shownTopicIds: ['top_1', 'top_2'], subscribedTopicIds: ['top_2'] })
 */
export async function savePreferences(deps: Deps, token: string, choice: PreferenceChoice): Promise<Preferences> {
  const target = await findUnsubscribeTarget(deps, token, 'preferences');
  if (target.mode === 'test') {
    if (choice.action === 'unsubscribe-all') await unsubscribeFromTestBroadcast(deps, target);
    return preferencesOf(deps, target);
  }
  const flag = flagOf(target);
  const now = deps.now();
  await unitOfWork(deps, async (tx, outbox) => {
    const current = await lockContact(tx, target.orgId, target.contactId);
    if (!current) throw new AppError('NOT_FOUND', 'Preference link not found');
    let data: Prisma.ContactUpdateInput;
    if (choice.action === 'save') {
      const shown = await selectPublicTopicIds(tx, target.orgId, choice.shownTopicIds.slice(0, MAX_PAGE_TOPICS));
      const ticked = new Set(choice.subscribedTopicIds);
      const chosen = Object.fromEntries(shown.map((t) => [t.id, ticked.has(t.id)]));
      data = { topics: { ...(current.topics as Record<string, boolean>), ...chosen } };
    } else {
      data = { [flag]: choice.action === 'resubscribe' };
    }
    const row = await updateContactRow(tx, current.id, { ...data, updatedAt: now });
    const address = target.channelType === 'email' ? row.email : row.phone;
    await syncUnsubscribes(tx, target.orgId, [row], choice.action === 'resubscribe' && address ? [address] : []);
    const contact = toContact(row);
    const endedSubscription = current[flag] && !row[flag];
    const types: EventType[] = endedSubscription ? ['contact.updated', 'contact.unsubscribed'] : ['contact.updated'];
    outbox.add(
      await recordEvents(
        tx,
        types.map((type) => ({ orgId: target.orgId, type, data: contact })),
      ),
    );
  });
  return preferencesOf(deps, target);
}
