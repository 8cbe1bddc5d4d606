import type { Db, Prisma } from '@tidings/db';

/** The organization's own list of SMS countries (null: never set) and its numbers, which give the default. */
export async function findSmsCountrySettings(db: Db, orgId: string): Promise<{ smsCountries: Prisma.JsonValue | null; numbers: { number: string; country: string | null }[] }> {
  const [org, numbers] = await Promise.all([
    db.organization.findUnique({ where: { id: orgId }, select: { smsCountries: true } }),
    db.phoneNumber.findMany({ where: { orgId }, select: { number: true, country: true } }),
  ]);
  return { smsCountries: org?.smsCountries ?? null, numbers };
}

/** Live verifications per destination prefix since `since`, and how many of them were approved. */
export async function countPrefixApprovals(db: Db, orgId: string, prefixes: string[], since: Date): Promise<{ prefix: string; sent: number; approved: number }[]> {
  const rows = await db.verification.groupBy({
    by: ['prefix'],
    where: { orgId, mode: 'live', prefix: { in: prefixes }, createdAt: { gte: since } },
    _count: { _all: true, approvedAt: true },
  });
  return rows.map((row) => ({ prefix: row.prefix ?? '', sent: row._count._all, approved: row._count.approvedAt }));
}

/** One audit row per refused SMS, in one statement. */
export async function insertSmsRefusals(db: Db, rows: Prisma.AuditEventCreateManyInput[]): Promise<void> {
  if (rows.length > 0) await db.auditEvent.createMany({ data: rows });
}

/** The fraud guard's refusals of `mode` since `since`, by reason. */
export async function countSmsRefusalsByReason(db: Db, orgId: string, mode: 'live' | 'test', since: Date): Promise<{ reason: string; count: number }[]> {
  const rows = await db.auditEvent.groupBy({
    by: ['targetId'],
    where: { orgId, mode, action: 'sms.refused', createdAt: { gte: since } },
    _count: { _all: true },
    orderBy: { targetId: 'asc' },
  });
  return rows.map((row) => ({ reason: row.targetId ?? 'unknown', count: row._count._all }));
}
