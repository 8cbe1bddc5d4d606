import type { Db, PhoneNumber as PhoneNumberRow, Prisma, Reads } from '@tidings/db';

/** The arguments `paginate` gives for one page. */
type PageArgs = { where: Prisma.PhoneNumberWhereInput; orderBy: Prisma.PhoneNumberOrderByWithRelationInput[]; take: number; skip: number };

/** The number row, or null when this organization does not own it. */
export function findPhoneNumberRow(db: Db, orgId: string, id: string): Promise<PhoneNumberRow | null> {
  return db.phoneNumber.findFirst({ where: { id, orgId } });
}

/**
 * Serializes changes to one organization's default number for the rest of the transaction, so two concurrent
 * updates queue instead of colliding; the partial unique index on ("orgId") WHERE "isDefault" is the guarantee.
 */
export async function lockDefaultNumber(tx: Prisma.TransactionClient, orgId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`phone-number-default:${orgId}`}, 0))`;
}

/** Which of `numbers` someone on this install owns (any organization). */
export function findOwnedNumbers(db: Db, numbers: string[]): Promise<{ number: string }[]> {
  return db.phoneNumber.findMany({ where: { number: { in: numbers } }, select: { number: true } });
}

/** The organization that owns `number` (any organization), or null. */
/** The organization's numbers a pool picks from (an organization has a handful; the first 200 by age). */
export function listPoolNumbers(db: Db, orgId: string): Promise<Pick<PhoneNumberRow, 'number' | 'country'>[]> {
  return db.phoneNumber.findMany({ where: { orgId }, select: { number: true, country: true }, orderBy: { createdAt: 'asc' }, take: 200 });
}

/** The pace of a sending number: its own rate when set, and its type for the default. */
export function findNumberPace(db: Db, number: string): Promise<Pick<PhoneNumberRow, 'type' | 'messagesPerSecond'> | null> {
  return db.phoneNumber.findUnique({ where: { number }, select: { type: true, messagesPerSecond: true } });
}

export function findNumberOwner(db: Db, number: string): Promise<{ orgId: string } | null> {
  return db.phoneNumber.findUnique({ where: { number }, select: { orgId: true } });
}

/** The organization's numbers a send may use: those named (`numbers`) and the default one. */
export function listSenderNumbers(db: Db, orgId: string, numbers: string[]): Promise<Pick<PhoneNumberRow, 'number' | 'isDefault'>[]> {
  return db.phoneNumber.findMany({
    where: { orgId, OR: [{ number: { in: numbers } }, { isDefault: true }] },
    select: { number: true, isDefault: true },
  });
}

/** The keyword replies the organization's number sets, or null when the number is not (or no longer) the organization's. */
export async function findNumberReplies(tx: Prisma.TransactionClient, orgId: string, number: string): Promise<{ replies: Prisma.JsonValue } | null> {
  return tx.phoneNumber.findFirst({ where: { orgId, number }, select: { replies: true } });
}

/** A page of the organization's numbers. May be served by a replica. */
export function listPhoneNumbersPage(reads: Reads, orgId: string, { where, ...page }: PageArgs): Promise<PhoneNumberRow[]> {
  return reads.run((db) => db.phoneNumber.findMany({ where: { orgId, ...where }, ...page }));
}

export function unsetOtherDefaultNumbers(tx: Prisma.TransactionClient, orgId: string, id: string): Promise<Prisma.BatchPayload> {
  return tx.phoneNumber.updateMany({ where: { orgId, isDefault: true, NOT: { id } }, data: { isDefault: false } });
}

/** Sets the fields given (undefined ones stay); a count of 0 when the number is gone (released meanwhile). */
export function updatePhoneNumberRow(
  tx: Prisma.TransactionClient,
  orgId: string,
  id: string,
  input: { friendlyName?: string | null; isDefault?: boolean; replies?: Prisma.InputJsonValue; messagesPerSecond?: number | null },
): Promise<Prisma.BatchPayload> {
  return tx.phoneNumber.updateMany({
    where: { id, orgId },
    data: {
      ...(input.friendlyName !== undefined ? { friendlyName: input.friendlyName } : {}),
      ...(input.isDefault !== undefined ? { isDefault: input.isDefault } : {}),
      ...(input.replies !== undefined ? { replies: input.replies } : {}),
      ...(input.messagesPerSecond !== undefined ? { messagesPerSecond: input.messagesPerSecond } : {}),
    },
  });
}

export function findPhoneNumberById(tx: Prisma.TransactionClient, id: string): Promise<PhoneNumberRow | null> {
  return tx.phoneNumber.findUnique({ where: { id } });
}

export async function hasDefaultNumber(tx: Prisma.TransactionClient, orgId: string): Promise<boolean> {
  return (await tx.phoneNumber.count({ where: { orgId, isDefault: true } })) > 0;
}

/** Fails with P2002 when someone on this install stored the number first. */
export function insertPhoneNumber(tx: Prisma.TransactionClient, row: Prisma.PhoneNumberUncheckedCreateInput): Promise<PhoneNumberRow> {
  return tx.phoneNumber.create({ data: row });
}

export function deletePhoneNumber(tx: Prisma.TransactionClient, orgId: string, id: string): Promise<Prisma.BatchPayload> {
  return tx.phoneNumber.deleteMany({ where: { id, orgId } });
}
