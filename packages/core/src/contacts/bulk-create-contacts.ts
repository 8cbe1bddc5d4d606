import { CreateContactBody, type BulkCreateContactsResult, type JsonValue, type RowError } from '@tidings/contracts';
import { columnsOf, Prisma, type Contact as ContactRow } from '@tidings/db';
import type { Deps } from '../deps.ts';
import { recordEvents } from '../events.ts';
import { newId } from '../ids.ts';
import { dispatchOutbox } from '../outbox.ts';
import { normalizeEmail, toContact, toE164, withoutNulls } from './contact-fields.ts';
import { unknownTopicIds } from '../topics/contact-topics.ts';
import { syncUnsubscribes } from './subscription-suppressions.ts';

type NewContact = {
  id: string;
  orgId: string;
  email: string | null;
  phone: string | null;
  firstName: string | null;
  lastName: string | null;
  attributes: Record<string, JsonValue>;
  emailSubscribed: boolean;
  smsSubscribed: boolean;
  topics: Record<string, boolean>;
};

/** Validates one row as contact.create would; returns the row to insert or the reason it cannot be. */
function prepareRow(orgId: string, raw: unknown): NewContact | string {
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
  };
}

/**
 * One INSERT for any number of rows: each column travels as one array parameter and `unnest` turns them back into
 * rows (Prisma's createMany binds every value separately and took about ten times as long for 1,000 rows). Times
 * are UTC, as Prisma stores them, whatever the session's time zone. A row
 * whose email or phone was taken meanwhile is skipped by ON CONFLICT DO NOTHING and is absent from the result.
 */
async function insertContacts(tx: Prisma.TransactionClient, orgId: string, rows: NewContact[]): Promise<ContactRow[]> {
  if (rows.length === 0) return [];
  const column = <K extends keyof NewContact>(key: K) => rows.map((r) => r[key]);
  return tx.$queryRaw<ContactRow[]>`
    INSERT INTO "Contact" ("id", "orgId", "email", "phone", "firstName", "lastName", "attributes", "emailSubscribed", "smsSubscribed", "topics", "createdAt", "updatedAt")
    SELECT u.id, ${orgId}, u.email, u.phone, u.first_name, u.last_name, u.attributes::jsonb, u.email_subscribed, u.sms_subscribed, u.topics::jsonb,
           now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
    FROM unnest(${column('id')}::text[], ${column('email')}::text[], ${column('phone')}::text[], ${column('firstName')}::text[],
                ${column('lastName')}::text[], ${rows.map((r) => JSON.stringify(r.attributes))}::text[],
                ${column('emailSubscribed')}::boolean[], ${column('smsSubscribed')}::boolean[], ${rows.map((r) => JSON.stringify(r.topics))}::text[])
      WITH ORDINALITY AS u(id, email, phone, first_name, last_name, attributes, email_subscribed, sms_subscribed, topics, position)
    ORDER BY u.position
    ON CONFLICT DO NOTHING
    RETURNING ${columnsOf(Prisma.ContactScalarFieldEnum)}`;
}

/**
 * contact.bulkCreate: up to 1,000 rows; each bad row is reported by index and never sinks the others. Rows are
 * refused when invalid, when they repeat an email or phone of an earlier row of the batch, or when a contact already
 * has it. The rest go in with a handful of statements whatever the count (one lookup, one INSERT ... ON CONFLICT DO
 * NOTHING RETURNING, one events insert, suppressions), in one transaction; a row beaten to its address by a
 * concurrent request is reported as a duplicate too.
 * @example const { created, errors } = await bulkCreateContacts(deps, orgId, [{ email: 'a@x.com' }, { email: 'bad' }]);
 */
export async function bulkCreateContacts(deps: Deps, orgId: string, rows: unknown[]): Promise<BulkCreateContactsResult> {
  const errors: RowError[] = [];
  const candidates: { index: number; row: NewContact }[] = [];
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
  const { created, outbox } = await deps.db.$transaction(async (tx) => {
    const existing = await tx.$queryRaw<{ email: string | null; phone: string | null }[]>`
      SELECT "email", "phone" FROM "Contact"
      WHERE "orgId" = ${orgId} AND ("email" = ANY(${emails}::text[]) OR "phone" = ANY(${phones}::text[]))`;
    const takenEmails = new Set(existing.map((e) => e.email));
    const takenPhones = new Set(existing.map((e) => e.phone));
    const fresh = candidates.filter(({ index, row }) => {
      const field = row.email && takenEmails.has(row.email) ? 'email' : row.phone && takenPhones.has(row.phone) ? 'phone' : null;
      if (field) errors.push({ index, code: 'CONFLICT', message: `${field}: another contact in this organization has this ${field}` });
      return !field;
    });
    const inserted = await insertContacts(
      tx,
      orgId,
      fresh.map((f) => f.row),
    );
    const insertedIds = new Set(inserted.map((r) => r.id));
    for (const { index, row } of fresh) {
      if (!insertedIds.has(row.id)) errors.push({ index, code: 'CONFLICT', message: 'email or phone: another contact in this organization has it' });
    }
    await syncUnsubscribes(tx, orgId, inserted, []);
    const byId = new Map(inserted.map((r) => [r.id, toContact(r)]));
    // Request order, not the database's.
    const created = fresh.flatMap((f) => (byId.has(f.row.id) ? [byId.get(f.row.id)!] : []));
    const outbox = await recordEvents(
      tx,
      created.map((contact) => ({ orgId, type: 'contact.created' as const, data: contact })),
    );
    return { created, outbox };
  });
  await dispatchOutbox(deps, outbox);
  return { created, errors: errors.sort((a, b) => a.index - b.index) };
}
