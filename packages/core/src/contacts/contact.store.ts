import type { JsonValue, SegmentCriteria } from '@tidings/contracts';
import { columnsOf, Prisma, type Contact as ContactRow, type Db, type Reads } from '@tidings/db';
import { compileCriteria, utcTimestamp } from '../segments/criteria.store.ts';

/** A keyset position in `createdAt desc, id desc` order: the last row of the page before. */
type After = { createdAt: Date; id: string };

/** The contact.list filters, already checked and normalized by the service; `criteria` is the segment's. */
export type ContactConditions = {
  email?: string;
  phone?: string;
  q?: string;
  subscribed?: boolean;
  createdAfter?: Date;
  createdBefore?: Date;
  criteria?: SegmentCriteria;
};

/**
 * The contact.list filters as SQL conditions over the alias `c` (contact.export applies the same); `q` is a
 * case-insensitive prefix, its LIKE wildcards escaped.
 */
export function contactConditions(filters: ContactConditions): Prisma.Sql[] {
  const where: Prisma.Sql[] = [];
  if (filters.email !== undefined) where.push(Prisma.sql`c."email" = ${filters.email}`);
  if (filters.phone !== undefined) where.push(Prisma.sql`c."phone" = ${filters.phone}`);
  if (filters.q !== undefined) {
    const prefix = `${filters.q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
    where.push(Prisma.sql`(c."email" ILIKE ${prefix} OR c."firstName" ILIKE ${prefix} OR c."lastName" ILIKE ${prefix}
      OR concat_ws(' ', c."firstName", c."lastName") ILIKE ${prefix})`);
  }
  if (filters.subscribed !== undefined) {
    where.push(filters.subscribed ? Prisma.sql`(c."emailSubscribed" OR c."smsSubscribed")` : Prisma.sql`NOT (c."emailSubscribed" OR c."smsSubscribed")`);
  }
  if (filters.createdAfter !== undefined) where.push(Prisma.sql`c."createdAt" > ${utcTimestamp(filters.createdAfter)}`);
  if (filters.createdBefore !== undefined) where.push(Prisma.sql`c."createdAt" < ${utcTimestamp(filters.createdBefore)}`);
  if (filters.criteria !== undefined) where.push(compileCriteria(filters.criteria));
  return where;
}

/**
 * The organization's contacts matching every condition in `where`, as one SQL condition over the alias `c`.
 * @example const where = contactsMatching(orgId, await contactFilters(deps, orgId, query));
 */
export function contactsMatching(orgId: string, where: Prisma.Sql[]): Prisma.Sql {
  return Prisma.join([Prisma.sql`c."orgId" = ${orgId}`, ...where], ' AND ');
}

/** contact.create's row, as the service built it. */
export type NewContactRow = {
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

export async function insertContact(tx: Prisma.TransactionClient, data: NewContactRow): Promise<ContactRow> {
  return tx.contact.create({ data });
}

export async function findContact(db: Db, orgId: string, id: string): Promise<ContactRow | null> {
  return db.contact.findFirst({ where: { id, orgId } });
}

/** A contact's organization (found by id: an unsubscribe link names no organization), or null. */
export function findContactOrg(db: Db, id: string): Promise<{ orgId: string } | null> {
  return db.contact.findUnique({ where: { id }, select: { orgId: true } });
}

/** The organization's contact with that email (email) or phone (sms): the sender of an inbound message. */
export function findContactIdByAddress(tx: Prisma.TransactionClient, orgId: string, channelType: 'email' | 'sms', address: string): Promise<{ id: string } | null> {
  return tx.contact.findFirst({ where: { orgId, ...(channelType === 'email' ? { email: address } : { phone: address }) }, select: { id: true } });
}

/** The addresses of the organization's contacts among `ids`: a send's `contactId` recipients. */
export function listContactAddresses(db: Db, orgId: string, ids: string[]): Promise<{ id: string; email: string | null; phone: string | null }[]> {
  return db.contact.findMany({ where: { orgId, id: { in: ids } }, select: { id: true, email: true, phone: true } });
}

/** Contact `id` of the organization, or without one its newest contact: what a template preview fills `contact.*` from. */
export function findPreviewContact(db: Db, orgId: string, id?: string): Promise<Pick<ContactRow, 'id' | 'email' | 'phone' | 'firstName' | 'lastName' | 'attributes'> | null> {
  const select = { id: true, email: true, phone: true, firstName: true, lastName: true, attributes: true };
  return db.contact.findFirst({ where: { orgId, ...(id ? { id } : {}) }, select, orderBy: { createdAt: 'desc' } });
}

/** What a broadcast's template sees of the organization's contacts among `ids` (those deleted since are not there). */
export function findRecipientContacts(db: Db, orgId: string, ids: string[]): Promise<Pick<ContactRow, 'id' | 'email' | 'phone' | 'firstName' | 'lastName' | 'attributes'>[]> {
  return db.contact.findMany({
    where: { orgId, id: { in: ids } },
    select: { id: true, email: true, phone: true, firstName: true, lastName: true, attributes: true },
  });
}

/** The organization's contact, locked for the rest of the transaction (so concurrent merges never lose a key). */
export async function lockContact(tx: Prisma.TransactionClient, orgId: string, id: string): Promise<ContactRow | undefined> {
  const [current] = await tx.$queryRaw<ContactRow[]>`SELECT ${columnsOf(Prisma.ContactScalarFieldEnum)} FROM "Contact" WHERE "id" = ${id} AND "orgId" = ${orgId} FOR UPDATE`;
  return current;
}

/** contact.update's changes to a locked row; an undefined field stays as it is. */
export type ContactChanges = {
  email: string | null | undefined;
  phone: string | null | undefined;
  firstName: string | null | undefined;
  lastName: string | null | undefined;
  attributes: Record<string, JsonValue> | undefined;
  emailSubscribed: boolean | undefined;
  smsSubscribed: boolean | undefined;
  topics: Record<string, boolean> | undefined;
};

/** contact.update's changes, or a preference form's (topics, or the channel's subscription, with `updatedAt`). */
export async function updateContactRow(tx: Prisma.TransactionClient, id: string, data: ContactChanges | Prisma.ContactUpdateInput): Promise<ContactRow> {
  return tx.contact.update({ where: { id }, data });
}

/** The contact's subscription to a channel ends (`flag` false); undefined when it was not subscribed (or is gone). */
export async function unsubscribeContactFromChannel(
  tx: Prisma.TransactionClient,
  orgId: string,
  contactId: string,
  { flag, now }: { flag: 'emailSubscribed' | 'smsSubscribed'; now: Date },
): Promise<ContactRow | undefined> {
  const [contact] = (await tx.contact.updateManyAndReturn({
    where: { id: contactId, orgId, [flag]: true },
    data: { [flag]: false, updatedAt: now },
  })) as ContactRow[];
  return contact;
}

/** Sets `smsSubscribed` false on the organization's contacts with that phone (an SMS opt-out); returns those it changed. */
export async function unsubscribeContactsFromSms(tx: Prisma.TransactionClient, orgId: string, phone: string): Promise<ContactRow[]> {
  return tx.$queryRaw<ContactRow[]>`
    UPDATE "Contact" SET "smsSubscribed" = false, "updatedAt" = now() AT TIME ZONE 'UTC'
    WHERE "orgId" = ${orgId} AND "phone" = ${phone} AND "smsSubscribed" RETURNING *`;
}

/** Sets `smsSubscribed` back to true on the organization's contacts with that phone (an SMS opt-in); returns those it changed. */
export async function resubscribeContactsToSms(tx: Prisma.TransactionClient, orgId: string, phone: string): Promise<ContactRow[]> {
  return tx.$queryRaw<ContactRow[]>`
    UPDATE "Contact" SET "smsSubscribed" = true, "updatedAt" = now() AT TIME ZONE 'UTC'
    WHERE "orgId" = ${orgId} AND "phone" = ${phone} AND NOT "smsSubscribed" RETURNING *`;
}

/** Forgets every contact's choice about a deleted topic. */
export function removeTopicChoices(tx: Prisma.TransactionClient, orgId: string, topicId: string): Promise<number> {
  return tx.$executeRaw`UPDATE "Contact" SET "topics" = "topics" - ${topicId}::text WHERE "orgId" = ${orgId} AND "topics" -> ${topicId}::text IS NOT NULL`;
}

/** Deletes the organization's contact in one statement, returning the row it was (undefined when there was none). */
export async function deleteContactReturning(tx: Prisma.TransactionClient, orgId: string, id: string): Promise<ContactRow | undefined> {
  const [row] = await tx.$queryRaw<ContactRow[]>`DELETE FROM "Contact" WHERE "id" = ${id} AND "orgId" = ${orgId} RETURNING ${columnsOf(Prisma.ContactScalarFieldEnum)}`;
  return row;
}

/**
 * One page of the organization's contacts matching every condition in `where` (SQL over the alias `c`), newest first,
 * after the keyset position `after` or from `skip`. Raw SQL because segment criteria compile to SQL that Prisma's
 * query objects cannot express; everything here is bound parameters or fixed text. May be served by a replica.
 */
export async function selectContactsPage(reads: Reads, orgId: string, where: Prisma.Sql[], page: { after: After | undefined; take: number; skip: number }): Promise<ContactRow[]> {
  const conditions = [Prisma.sql`c."orgId" = ${orgId}`, ...where];
  if (page.after) {
    conditions.push(Prisma.sql`(c."createdAt", c."id") < (${utcTimestamp(page.after.createdAt)}, ${page.after.id})`);
  }
  return reads.run(
    (db) => db.$queryRaw<ContactRow[]>`
      SELECT c.* FROM "Contact" c
      WHERE ${Prisma.join(conditions, ' AND ')}
      ORDER BY c."createdAt" DESC, c."id" DESC
      LIMIT ${page.take} OFFSET ${page.skip}`,
  );
}

/** How many of the organization's contacts match every condition in `where`. May be served by a replica. */
export async function countMatchingContacts(reads: Reads, orgId: string, where: Prisma.Sql[]): Promise<number> {
  const [row] = await reads.run(
    (db) => db.$queryRaw<{ count: bigint }[]>`
      SELECT count(*) AS count FROM "Contact" c WHERE ${Prisma.join([Prisma.sql`c."orgId" = ${orgId}`, ...where], ' AND ')}`,
  );
  return Number(row?.count ?? 0);
}

/** Every attribute key any contact matching `where` (from `contactsMatching`) has, in order; for the export's columns. */
export async function selectAttributeKeys(reads: Reads, where: Prisma.Sql): Promise<{ key: string }[]> {
  return reads.run(
    (db) => db.$queryRaw<{ key: string }[]>`
      SELECT DISTINCT k."key" FROM "Contact" c, jsonb_object_keys(CASE WHEN jsonb_typeof(c."attributes") = 'object' THEN c."attributes" ELSE '{}'::jsonb END) AS k("key")
      WHERE ${where} ORDER BY k."key"`,
  );
}

/**
 * One export batch of the contacts matching `where` (from `contactsMatching`), newest first, after `after` when given.
 * May be served by a replica (the export's attribute keys too).
 */
export async function selectExportBatch(reads: Reads, where: Prisma.Sql, after: After | null, limit: number): Promise<ContactRow[]> {
  const page: Prisma.Sql = after ? Prisma.sql`AND (c."createdAt", c."id") < (${utcTimestamp(after.createdAt)}, ${after.id})` : Prisma.empty;
  return reads.run(
    (db) => db.$queryRaw<ContactRow[]>`
      SELECT c.* FROM "Contact" c WHERE ${where} ${page} ORDER BY c."createdAt" DESC, c."id" DESC LIMIT ${limit}`,
  );
}

/** The organization's contacts that already have one of `emails` or `phones`: bulkCreate's one lookup. */
export async function findContactsByAddress(
  tx: Prisma.TransactionClient,
  orgId: string,
  emails: string[],
  phones: string[],
): Promise<{ id: string; email: string | null; phone: string | null }[]> {
  return tx.$queryRaw<{ id: string; email: string | null; phone: string | null }[]>`
      SELECT "id", "email", "phone" FROM "Contact"
      WHERE "orgId" = ${orgId} AND ("email" = ANY(${emails}::text[]) OR "phone" = ANY(${phones}::text[]))`;
}

/** A bulkCreate row to insert, or to apply to the contact that has its email or phone. */
export type ImportedContact = NewContactRow & {
  /** For `onConflict: "update"`: which names the row gave, and its attributes with their nulls (a null removes the key). */
  given: { firstName: boolean; lastName: boolean; attributes: Record<string, JsonValue> };
};

/**
 * One INSERT for any number of rows: each column travels as one array parameter and `unnest` turns them back into
 * rows (Prisma's createMany binds every value separately and took about ten times as long for 1,000 rows). Times
 * are UTC, as Prisma stores them, whatever the session's time zone. A row
 * whose email or phone was taken meanwhile is skipped by ON CONFLICT DO NOTHING and is absent from the result.
 */
export async function insertContacts(tx: Prisma.TransactionClient, orgId: string, rows: ImportedContact[]): Promise<ContactRow[]> {
  if (rows.length === 0) return [];
  const column = <K extends keyof ImportedContact>(key: K) => rows.map((r) => r[key]);
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
export async function updateImportedContacts(tx: Prisma.TransactionClient, orgId: string, updates: { id: string; row: ImportedContact }[]): Promise<ContactRow[]> {
  if (updates.length === 0) return [];
  const column = <T>(pick: (u: { id: string; row: ImportedContact }) => T) => updates.map(pick);
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
