import { CreateContactBody, type BulkCreateContactsResult, type RowError } from '@tidings/contracts';
import type { Deps } from '../deps.ts';
import { recordEvents } from '../events.ts';
import { newId } from '../ids.ts';
import { unitOfWork } from '../unit-of-work.ts';
import { normalizeEmail, toContact, toE164, withoutNulls } from './contact-fields.ts';
import { unknownTopicIds } from '../topics/contact-topics.ts';
import { syncUnsubscribes } from './subscription-suppressions.ts';
import { findContactsByAddress, insertContacts, updateImportedContacts, type ImportedContact } from './contact.store.ts';

/** Validates one row as contact.create would; returns the row to insert or the reason it cannot be. */
function prepareRow(orgId: string, raw: unknown): ImportedContact | string {
  const parsed = CreateContactBody.safeParse(raw);
  if (!parsed.success) {
    return parsed.error.issues
      .map((issue) => {
        if (issue.code === 'unrecognized_keys') return issue.keys.map((k) => `${k}: unknown field`).join('; ');
        return `${issue.path.length > 0 ? issue.path.join('.') : 'row'}: ${issue.message}`;
      })
      .join('; ');
  }
  const input = parsed.data;
  const phone = input.phone === undefined ? null : toE164(input.phone);
  if (input.phone !== undefined && !phone) return 'phone: must be a valid phone number with its country code, such as +14155550123';
  return {
    id: newId('con'),
    orgId,
    email: input.email === undefined ? null : normalizeEmail(input.email),
    phone,
    firstName: input.firstName ?? null,
    lastName: input.lastName ?? null,
    attributes: withoutNulls(input.attributes),
    emailSubscribed: input.emailSubscribed,
    smsSubscribed: input.smsSubscribed,
    topics: Object.fromEntries((input.topics ?? []).map((t) => [t.topicId, t.subscribed])),
    given: { firstName: input.firstName !== undefined, lastName: input.lastName !== undefined, attributes: input.attributes ?? {} },
  };
}

/** What bulkCreate does with a row whose email or phone a contact already has. */
export type OnConflict = 'skip' | 'update';

/**
 * contact.bulkCreate: up to 1,000 rows; each bad row is reported by index and never sinks the others. Rows are
 * refused when invalid, or when they repeat an email or phone of an earlier row of the batch. A row whose email or
 * phone a contact already has is refused (`skip`) or changes that contact (`update`: found by email, else by phone;
 * refused when its email and phone belong to two different contacts). The rest go in with a handful of statements
 * whatever the count (one lookup, one INSERT ... ON CONFLICT DO NOTHING RETURNING, one UPDATE, one events insert,
 * suppressions), in one transaction; a row beaten to its address by a concurrent request is reported as a duplicate.
 * @example const { created, updated, errors } = await bulkCreateContacts(deps, orgId, [{ email: 'a@x.com' }, { email: 'bad' }], 'update');
 */
export async function bulkCreateContacts(deps: Deps, orgId: string, rows: unknown[], onConflict: OnConflict = 'skip'): Promise<BulkCreateContactsResult> {
  const errors: RowError[] = [];
  const candidates: { index: number; row: ImportedContact }[] = [];
  const firstIndexOf = new Map<string, number>();
  const prepared = rows.map((raw) => prepareRow(orgId, raw));
  // one query for the topics every row names; a row naming one that is not the organization's is refused
  const unknownTopics = new Set(
    await unknownTopicIds(
      deps,
      orgId,
      prepared.flatMap((row) => (typeof row === 'string' ? [] : Object.keys(row.topics))),
    ),
  );
  for (const [index, row] of prepared.entries()) {
    if (typeof row === 'string') {
      errors.push({ index, code: 'BAD_REQUEST', message: row });
      continue;
    }
    const unknownTopic = Object.keys(row.topics).find((id) => unknownTopics.has(id));
    if (unknownTopic !== undefined) {
      errors.push({ index, code: 'NOT_FOUND', message: `topics: topic ${unknownTopic} not found` });
      continue;
    }
    const keys = [row.email && `email:${row.email}`, row.phone && `phone:${row.phone}`].filter((k): k is string => !!k);
    const repeated = keys.find((k) => firstIndexOf.has(k));
    if (repeated) {
      const field = repeated.split(':')[0];
      errors.push({ index, code: 'CONFLICT', message: `${field}: same ${field} as row ${firstIndexOf.get(repeated)} of this batch` });
      continue;
    }
    for (const k of keys) firstIndexOf.set(k, index);
    candidates.push({ index, row });
  }

  const emails = candidates.flatMap((c) => (c.row.email ? [c.row.email] : []));
  const phones = candidates.flatMap((c) => (c.row.phone ? [c.row.phone] : []));
  const { created, updated } = await unitOfWork(deps, async (tx, outbox) => {
    const existing = await findContactsByAddress(tx, orgId, emails, phones);
    const byEmail = new Map(existing.flatMap((e) => (e.email ? [[e.email, e.id]] : [])));
    const byPhone = new Map(existing.flatMap((e) => (e.phone ? [[e.phone, e.id]] : [])));
    const fresh: typeof candidates = [];
    const updates: { index: number; id: string; row: ImportedContact }[] = [];
    for (const { index, row } of candidates) {
      const emailOwner = row.email ? byEmail.get(row.email) : undefined;
      const phoneOwner = row.phone ? byPhone.get(row.phone) : undefined;
      if (!emailOwner && !phoneOwner) fresh.push({ index, row });
      else if (onConflict === 'skip') {
        const field = emailOwner ? 'email' : 'phone';
        errors.push({ index, code: 'CONFLICT', message: `${field}: another contact in this organization has this ${field}` });
      } else if (emailOwner && phoneOwner && emailOwner !== phoneOwner) {
        errors.push({ index, code: 'CONFLICT', message: 'phone: another contact than the one with this email has this phone' });
      } else updates.push({ index, id: (emailOwner ?? phoneOwner)!, row });
    }
    const inserted = await insertContacts(
      tx,
      orgId,
      fresh.map((f) => f.row),
    );
    const insertedIds = new Set(inserted.map((r) => r.id));
    for (const { index, row } of fresh) {
      if (!insertedIds.has(row.id)) errors.push({ index, code: 'CONFLICT', message: 'email or phone: another contact in this organization has it' });
    }
    const changed = await updateImportedContacts(tx, orgId, updates);
    await syncUnsubscribes(tx, orgId, [...inserted, ...changed], []);
    const byId = new Map([...inserted, ...changed].map((r) => [r.id, toContact(r)]));
    // Request order, not the database's.
    const created = fresh.flatMap((f) => (byId.has(f.row.id) ? [byId.get(f.row.id)!] : []));
    const updated = updates.flatMap((u) => (byId.has(u.id) ? [byId.get(u.id)!] : []));
    outbox.add(
      await recordEvents(tx, [
        ...created.map((contact) => ({ orgId, type: 'contact.created' as const, data: contact })),
        ...updated.map((contact) => ({ orgId, type: 'contact.updated' as const, data: contact })),
      ]),
    );
    return { created, updated };
  });
  return { created, updated, errors: errors.sort((a, b) => a.index - b.index) };
}
