import {
  type Contact,
  type ContactFilterQuery,
  type ContactListQuery,
  type CreateContactBody,
  type JsonValue,
  MAX_ATTRIBUTES,
  type SegmentCriteria,
  type UpdateContactBody,
} from '@tidings/contracts';
import type { Prisma } from '@tidings/db';
import type { Deps } from '../deps.ts';
import { AppError, foundOr404 } from '../errors.ts';
import { recordEvents } from '../events.ts';
import { newId } from '../ids.ts';
import { unitOfWork } from '../unit-of-work.ts';
import type { Page } from '../pagination.ts';
import { findSegment } from '../segments/find-segment.ts';
import { requireTopicChoices } from '../topics/contact-topics.ts';
import { duplicateContact, normalizeEmail, requireE164, toContact, uniqueViolationField, withoutNulls } from './contact-fields.ts';
import { contactConditions, deleteContactReturning, findContact, insertContact, lockContact, updateContactRow } from './contact.store.ts';
import { queryContacts } from './query-contacts.ts';
import { syncUnsubscribes } from './subscription-suppressions.ts';

/** Runs a contact write, turning a unique-index violation into the 409 that names the field. */
async function conflictsAs409<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const field = uniqueViolationField(error);
    if (field) throw duplicateContact(field);
    throw error;
  }
}

/**
 * contact.create: stores the email lower-cased and the phone as E.164; 409 when another contact of the organization
 * has either. Records `contact.created` and, for an unsubscribed channel, the suppression, in the same transaction.
 * @example await createContact(deps, orgId, { email: 'ada@example.com', emailSubscribed: true, smsSubscribed: true });
 */
export async function createContact(deps: Deps, orgId: string, input: CreateContactBody): Promise<Contact> {
  const topics = await requireTopicChoices(deps, orgId, input.topics ?? []);
  const data = {
    id: newId('con'),
    orgId,
    email: input.email === undefined ? null : normalizeEmail(input.email),
    phone: input.phone === undefined ? null : requireE164(input.phone),
    firstName: input.firstName ?? null,
    lastName: input.lastName ?? null,
    attributes: withoutNulls(input.attributes),
    emailSubscribed: input.emailSubscribed,
    smsSubscribed: input.smsSubscribed,
    topics,
  };
  return conflictsAs409(() =>
    unitOfWork(deps, async (tx, outbox) => {
      const row = await insertContact(tx, data);
      await syncUnsubscribes(tx, orgId, [row], []);
      const contact = toContact(row);
      outbox.add(await recordEvents(tx, [{ orgId, type: 'contact.created', data: contact }]));
      return contact;
    }),
  );
}

/**
 * contact.get
 * @example const contact = await getContact(deps, orgId, 'con_01JD8Z5Q9X4N7W2M3K6P0R1T5V');
 */
export async function getContact({ db }: Pick<Deps, 'db'>, orgId: string, id: string): Promise<Contact> {
  return toContact(foundOr404(await findContact(db, orgId, id), 'Contact'));
}

/**
 * The contact.list filters as SQL conditions over the alias `c` (contact.export applies the same); an unknown
 * `segmentId` is NOT_FOUND.
 * @example const where = await contactFilters(deps, orgId, { subscribed: true });
 */
export async function contactFilters(deps: Pick<Deps, 'db'>, orgId: string, query: ContactFilterQuery): Promise<Prisma.Sql[]> {
  // checked in this order (a phone that is not a number is refused before the segment is looked up)
  const email = query.email === undefined ? undefined : normalizeEmail(query.email);
  const phone = query.phone === undefined ? undefined : requireE164(query.phone);
  const segment = query.segmentId === undefined ? undefined : await findSegment(deps, orgId, query.segmentId);
  return contactConditions({
    email,
    phone,
    q: query.q,
    subscribed: query.subscribed,
    createdAfter: query.createdAfter === undefined ? undefined : new Date(query.createdAfter),
    createdBefore: query.createdBefore === undefined ? undefined : new Date(query.createdBefore),
    criteria: segment === undefined ? undefined : (segment.criteria as SegmentCriteria),
  });
}

/**
 * contact.list: newest first, with the filters of contactFilters; `segmentId` applies the segment's criteria in SQL.
 * @example await listContacts(deps, orgId, { limit: 20, offset: 0, segmentId: 'seg_...', subscribed: true })
 */
export async function listContacts(deps: Pick<Deps, 'db' | 'reads'>, orgId: string, query: ContactListQuery): Promise<Page<Contact>> {
  return queryContacts(deps, orgId, await contactFilters(deps, orgId, query), query);
}

/** Stored attributes merged key by key with `changes`; a null value removes its key. */
function mergeAttributes(stored: unknown, changes: Record<string, JsonValue>): Record<string, JsonValue> {
  const merged = { ...(stored as Record<string, JsonValue>), ...changes };
  const result = withoutNulls(merged);
  if (Object.keys(result).length > MAX_ATTRIBUTES) throw new AppError('BAD_REQUEST', `attributes: at most ${MAX_ATTRIBUTES} keys`);
  return result;
}

/**
 * contact.update: a partial update; `attributes` merges key by key. Locks the row so concurrent merges never lose a
 * key. A contact must keep an email or a phone. Setting a channel's flag to false suppresses its address; setting it
 * back to true lifts only that `unsubscribed` suppression. `topics` merges by topic; each must be the organization's.
 * @example await updateContact(deps, orgId, id, { attributes: { plan: 'pro', trial: null }, smsSubscribed: false })
 */
export async function updateContact(deps: Deps, orgId: string, id: string, input: UpdateContactBody): Promise<Contact> {
  const email = input.email === undefined ? undefined : input.email === null ? null : normalizeEmail(input.email);
  const phone = input.phone === undefined ? undefined : input.phone === null ? null : requireE164(input.phone);
  const topics = input.topics === undefined ? undefined : await requireTopicChoices(deps, orgId, input.topics);
  return conflictsAs409(() =>
    unitOfWork(deps, async (tx, outbox) => {
      const current = await lockContact(tx, orgId, id);
      if (!current) throw new AppError('NOT_FOUND', 'Contact not found');
      const nextEmail = email === undefined ? current.email : email;
      const nextPhone = phone === undefined ? current.phone : phone;
      if (nextEmail === null && nextPhone === null) throw new AppError('BAD_REQUEST', 'email: a contact needs an email or a phone');
      const row = await updateContactRow(tx, current.id, {
        email,
        phone,
        firstName: input.firstName,
        lastName: input.lastName,
        attributes: input.attributes === undefined ? undefined : mergeAttributes(current.attributes, input.attributes),
        emailSubscribed: input.emailSubscribed,
        smsSubscribed: input.smsSubscribed,
        // merged by topic: a topic not named keeps its choice (the row is locked, so no concurrent choice is lost)
        topics: topics === undefined ? undefined : { ...(current.topics as Record<string, boolean>), ...topics },
      });
      const resubscribed = [...(input.emailSubscribed === true && row.email ? [row.email] : []), ...(input.smsSubscribed === true && row.phone ? [row.phone] : [])];
      await syncUnsubscribes(tx, orgId, [row], resubscribed);
      const contact = toContact(row);
      outbox.add(await recordEvents(tx, [{ orgId, type: 'contact.updated', data: contact }]));
      return contact;
    }),
  );
}

/**
 * contact.delete. Messages sent to the contact stay: their `contactId` becomes a dangling reference (there is no
 * foreign key), so history survives. Suppressions stay too: an opt-out outlives the contact record.
 * @example await deleteContact(deps, orgId, id); // then contact.deleted is recorded
 */
export async function deleteContact(deps: Deps, orgId: string, id: string): Promise<void> {
  await unitOfWork(deps, async (tx, outbox) => {
    const row = await deleteContactReturning(tx, orgId, id);
    if (!row) throw new AppError('NOT_FOUND', 'Contact not found');
    outbox.add(await recordEvents(tx, [{ orgId, type: 'contact.deleted', data: toContact(row) }]));
  });
}
