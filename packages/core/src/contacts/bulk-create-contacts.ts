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
  /** For `onConflict: "update"`: which names the row gave, and its attributes with their nulls (a null removes the key). */
  given: { firstName: boolean; lastName: boolean; attributes: Record<string, JsonValue> };
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
    given: { firstName: input.firstName !== undefined, lastName: input.lastName !== undefined, attributes: input.attributes ?? {} },
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
 * The `onConflict: "update"` rows in ONE statement: names the row gave, attributes merged key by key (a null removes
 * the key), email and phone when given, topic choices merged by topic, and a subscription flag only ever turned off
 * (an import never resubscribes).
 */
async function updateContacts(tx: Prisma.TransactionClient, orgId: string, updates: { id: string; row: NewContact }[]): Promise<ContactRow[]> {
  if (updates.length === 0) return [];
  const column = <T>(pick: (u: { id: string; row: NewContact }) => T) => updates.map(pick);
  return tx.$queryRaw<ContactRow[]>`
    UPDATE "Contact" c SET
      "email" = coalesce(u.email, c."email"), "phone" = coalesce(u.phone, c."phone"),
      "firstName" = CASE WHEN u.first_given THEN u.first_name ELSE c."firstName" END,
      "lastName" = CASE WHEN u.last_given THEN u.last_name ELSE c."lastName" END,
      "attributes" = jsonb_strip_nulls(coalesce(c."attributes", '{}'::jsonb) || u.attributes::jsonb),
      "emailSubscribed" = c."emailSubscribed" AND u.email_subscribed, "smsSubscribed" = c."smsSubscribed" AND u.sms_subscribed,
      "topics" = coalesce(c."topics", '{}'::jsonb) || u.topics::jsonb,
      "updatedAt" = now() AT TIME ZONE 'UTC'
    FROM unnest(${column((u) => u.id)}::text[], ${column((u) => u.row.email)}::text[], ${column((u) => u.row.phone)}::text[],
                ${column((u) => u.row.given.firstName)}::boolean[], ${column((u) => u.row.firstName)}::text[],
                ${column((u) => u.row.given.lastName)}::boolean[], ${column((u) => u.row.lastName)}::text[],
                ${column((u) => JSON.stringify(u.row.given.attributes))}::text[],
                ${column((u) => u.row.emailSubscribed)}::boolean[], ${column((u) => u.row.smsSubscribed)}::boolean[],
                ${column((u) => JSON.stringify(u.row.topics))}::text[])
      AS u(id, email, phone, first_given, first_name, last_given, last_name, attributes, email_subscribed, sms_subscribed, topics)
    WHERE c."id" = u.id AND c."orgId" = ${orgId}
    RETURNING c.*`;
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
  const { created, updated, outbox } = await deps.db.$transaction(async (tx) => {
    const existing = await tx.$queryRaw<{ id: string; email: string | null; phone: string | null }[]>`
      SELECT "id", "email", "phone" FROM "Contact"
      WHERE "orgId" = ${orgId} AND ("email" = ANY(${emails}::text[]) OR "phone" = ANY(${phones}::text[]))`;
    const byEmail = new Map(existing.flatMap((e) => (e.email ? [[e.email, e.id]] : [])));
    const byPhone = new Map(existing.flatMap((e) => (e.phone ? [[e.phone, e.id]] : [])));
    const fresh: typeof candidates = [];
    const updates: { index: number; id: string; row: NewContact }[] = [];
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
    const changed = await updateContacts(tx, orgId, updates);
    await syncUnsubscribes(tx, orgId, [...inserted, ...changed], []);
    const byId = new Map([...inserted, ...changed].map((r) => [r.id, toContact(r)]));
    // Request order, not the database's.
    const created = fresh.flatMap((f) => (byId.has(f.row.id) ? [byId.get(f.row.id)!] : []));
    const updated = updates.flatMap((u) => (byId.has(u.id) ? [byId.get(u.id)!] : []));
    const outbox = await recordEvents(tx, [
      ...created.map((contact) => ({ orgId, type: 'contact.created' as const, data: contact })),
      ...updated.map((contact) => ({ orgId, type: 'contact.updated' as const, data: contact })),
    ]);
    return { created, updated, outbox };
  });
  await dispatchOutbox(deps, outbox);
  return { created, updated, errors: errors.sort((a, b) => a.index - b.index) };
}
