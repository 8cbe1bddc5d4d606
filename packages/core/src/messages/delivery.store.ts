import { Prisma, type Db, type Message as MessageRow, type MessageStatusEvent } from '@tidings/db';

// Claims (delivery.ts)

// A live message honours live suppressions only (a test key's STOP or bounce never stops a live send); a test one
// honours both: the organization's list applies to the sandbox too. STOP's confirmation and HELP's answer are the
// only messages a suppressed number receives.
const notSuppressed = Prisma.sql`("Message"."keywordReply" IN ('stop', 'help') OR NOT EXISTS (SELECT 1 FROM "Suppression" s
  WHERE s."orgId" = "Message"."orgId" AND s."recipient" = "Message"."to" AND (s."mode" = 'live' OR s."mode" = "Message"."mode")))`;
// A suspended organization's messages are not sent (tidings orgs suspend).
const orgActive = Prisma.sql`NOT EXISTS (SELECT 1 FROM "Organization" o WHERE o."id" = "Message"."orgId" AND o."suspendedAt" IS NOT NULL)`;
// A canceled broadcast's messages never reach a provider, even those whose jobs were queued before the cancel.
const broadcastLive = Prisma.sql`("Message"."broadcastId" IS NULL OR NOT EXISTS (
  SELECT 1 FROM "Broadcast" b WHERE b."id" = "Message"."broadcastId" AND b."status" = 'canceled'))`;

/**
 * The condition on the row (aliased "Message") for the grouped claim to take it (a status change's `onlyIf`): its
 * recipient is not suppressed, its broadcast not canceled, its organization not suspended.
 */
export const claimableSql: Prisma.Sql = Prisma.sql`${notSuppressed} AND ${broadcastLive} AND ${orgActive}`;

/** What decides a message's claim when the grouped claim did not take it. */
export type ClaimState = { status: MessageRow['status']; scheduledAt: Date | null; isSuppressed: boolean; isBroadcastCanceled: boolean; isOrgSuspended: boolean };

export async function findClaimState(db: Db, messageId: string): Promise<ClaimState | undefined> {
  const [current] = await db.$queryRaw<ClaimState[]>`
    SELECT m."status", m."scheduledAt",
           EXISTS (SELECT 1 FROM "Organization" o WHERE o."id" = m."orgId" AND o."suspendedAt" IS NOT NULL) AS "isOrgSuspended",
           (m."keywordReply" IS NULL OR m."keywordReply" = 'start')
             -- every To recipient suppressed (the claim above already found the first one is)
             AND NOT EXISTS (SELECT 1 FROM unnest(array_prepend(m."to", m."additionalTo")) AS r("recipient") WHERE NOT EXISTS (
               SELECT 1 FROM "Suppression" s WHERE s."orgId" = m."orgId" AND s."recipient" = r."recipient" AND (s."mode" = 'live' OR s."mode" = m."mode"))) AS "isSuppressed",
           EXISTS (SELECT 1 FROM "Broadcast" b WHERE b."id" = m."broadcastId" AND b."status" = 'canceled') AS "isBroadcastCanceled"
    FROM "Message" m WHERE m."id" = ${messageId}`;
  return current;
}

/** A retry of a message still `sending`: counts the attempt; null when it is no longer `sending`. */
export async function countSendingAttempt(db: Db, messageId: string): Promise<MessageRow | null> {
  const [row] = await db.message.updateManyAndReturn({ where: { id: messageId, status: 'sending' }, data: { attempts: { increment: 1 } } });
  return row ?? null;
}

// Provider calls and their outcome (delivery.ts, provider-outcome.ts)

/** When a callback moved the message past `sending` before it was marked sent: fills in the provider and its id, unless already known. */
export async function fillInProvider(db: Db, messageId: string, sent: { provider: string; providerMessageId: string }): Promise<void> {
  await db.message.updateMany({ where: { id: messageId, providerMessageId: null }, data: sent });
}

/**
 * A message still `sending` waits for a provider's pace: the attempt its claim counted is given back (waiting is no
 * attempt), and when and why it waits are shown. A transactional message's `deferredUntil` is also the slot it holds.
 */
export async function recordDeferral(db: Db, messageId: string, deferral: { until: Date; reason: string }): Promise<void> {
  await db.message.updateMany({
    where: { id: messageId, status: 'sending', attempts: { gt: 0 } },
    data: { attempts: { decrement: 1 }, deferredUntil: deferral.until, deferredReason: deferral.reason },
  });
}

/** Shows the error on a message still `sending` and adds a `sending` history entry naming the provider and the error. */
export async function recordSendingError(
  db: Db,
  messageId: string,
  { error, provider, at }: { error: { code: string; message: string }; provider: string | null; at: Date },
): Promise<void> {
  await db.$executeRaw`
    WITH updated AS (
      UPDATE "Message" SET "errorCode" = ${error.code}, "errorMessage" = ${error.message}, "deferredUntil" = NULL, "deferredReason" = NULL,
        "updatedAt" = ${at.toISOString()}::timestamp
      WHERE "id" = ${messageId} AND "status" = 'sending' RETURNING "id")
    INSERT INTO "MessageStatusEvent" ("messageId", "status", "provider", "errorCode", "errorMessage", "createdAt")
    SELECT "id", 'sending', ${provider}, ${error.code}, ${error.message}, ${at.toISOString()}::timestamp FROM updated`;
}

/** A `sending` history entry naming `provider` without an error: the attempt hands the message to it. */
export async function insertProviderClaim(db: Db, messageId: string, provider: string, at: Date): Promise<void> {
  await db.messageStatusEvent.create({ data: { messageId, status: 'sending', provider, createdAt: at } });
}

export function findLastStatusEvent(db: Db, messageId: string): Promise<Pick<MessageStatusEvent, 'status' | 'provider' | 'errorCode'> | null> {
  return db.messageStatusEvent.findFirst({ where: { messageId }, orderBy: { id: 'desc' }, select: { status: true, provider: true, errorCode: true } });
}

/** The bounced recipient joins the organization's suppression list of the message's mode (kept as it is when already there). */
export async function insertBounceSuppression(tx: Prisma.TransactionClient, message: Pick<MessageRow, 'orgId' | 'to' | 'mode'>): Promise<void> {
  await tx.suppression.createMany({ data: [{ orgId: message.orgId, recipient: message.to, mode: message.mode, reason: 'bounced' }], skipDuplicates: true });
}

// Suppressed recipients of an email to several (outgoing-message.ts)

/** The `SUPPRESSED` history entries of a message whose text starts with `notePrefix`: the recipients a send dropped. */
export function listSuppressedNotes(db: Db, messageId: string, notePrefix: string): Promise<Pick<MessageStatusEvent, 'errorMessage'>[]> {
  return db.messageStatusEvent.findMany({ where: { messageId, errorCode: 'SUPPRESSED', errorMessage: { startsWith: notePrefix } }, select: { errorMessage: true } });
}

/** Which of `recipients` are on the organization's suppression list for a message of `mode` (live suppressions apply to both modes). */
export function findSuppressedRecipients(db: Db, orgId: string, recipients: string[], mode: MessageRow['mode']): Promise<{ recipient: string }[]> {
  return db.suppression.findMany({
    where: { orgId, recipient: { in: recipients }, mode: { in: ['live', mode] } },
    select: { recipient: true },
  });
}

/** A `SUPPRESSED` history entry (at the message's current status) naming the recipients a send dropped. */
export async function insertSuppressedNote(db: Db, messageId: string, status: MessageRow['status'], errorMessage: string): Promise<void> {
  await db.messageStatusEvent.create({
    data: { messageId, status, errorCode: 'SUPPRESSED', errorMessage },
  });
}
