import type { Db, Organization as OrganizationRow, Prisma } from '@tidings/db';

/** An organization with its state and counts, as the operator lists it. */
export type OrganizationSummaryRow = {
  id: string;
  name: string;
  createdAt: Date;
  suspendedAt: Date | null;
  liveKeysAllowed: boolean;
  _count: { memberships: number; apiKeys: number };
};

const summarySelect = {
  id: true,
  name: true,
  createdAt: true,
  suspendedAt: true,
  liveKeysAllowed: true,
  _count: { select: { memberships: true, apiKeys: { where: { deletedAt: null } } } },
} as const;

/** Without `liveKeysAllowed` it takes the column's default (live keys allowed). */
export function insertOrganization(tx: Prisma.TransactionClient, row: { id: string; name: string; liveKeysAllowed?: boolean }): Promise<OrganizationRow> {
  return tx.organization.create({ data: row });
}

export function findOrganization(db: Db, orgId: string): Promise<OrganizationRow | null> {
  return db.organization.findUnique({ where: { id: orgId } });
}

/** Whether the organization exists (its id when it does). */
export function findOrganizationId(db: Db, orgId: string): Promise<{ id: string } | null> {
  return db.organization.findUnique({ where: { id: orgId }, select: { id: true } });
}

export function findOrganizationName(db: Db, orgId: string): Promise<{ name: string } | null> {
  return db.organization.findUnique({ where: { id: orgId }, select: { name: true } });
}

/** The organization's name, which must exist (Prisma's not-found error otherwise): a keyword reply's, whose inbound message names it. */
export function findOrganizationNameOrThrow(tx: Prisma.TransactionClient, orgId: string): Promise<{ name: string }> {
  return tx.organization.findUniqueOrThrow({ where: { id: orgId }, select: { name: true } });
}

/** False for an organization made for testing, until an operator allows live keys. */
export function findOrganizationLiveKeysAllowed(db: Db, orgId: string): Promise<{ liveKeysAllowed: boolean } | null> {
  return db.organization.findUnique({ where: { id: orgId }, select: { liveKeysAllowed: true } });
}

export function findOrganizationSuspendedAt(db: Db, orgId: string): Promise<{ suspendedAt: Date | null } | null> {
  return db.organization.findUnique({ where: { id: orgId }, select: { suspendedAt: true } });
}

/** At most two organizations: enough to tell whether the install has exactly one. */
export function listUpToTwoOrganizations(db: Db): Promise<{ id: string; name: string }[]> {
  return db.organization.findMany({ take: 2, select: { id: true, name: true } });
}

/** At most two organizations' ids: enough to tell whether the install has exactly one. */
export function listUpToTwoOrganizationIds(tx: Prisma.TransactionClient): Promise<{ id: string }[]> {
  return tx.organization.findMany({ take: 2, select: { id: true } });
}

/** Every organization of the install with its state and counts (keys that are not deleted), oldest first. */
export function listOrganizationSummaries(db: Db): Promise<OrganizationSummaryRow[]> {
  return db.organization.findMany({ select: summarySelect, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

/** Returns the organization's summary as it is after the change. */
export function updateOrganizationSuspendedAt(tx: Prisma.TransactionClient, orgId: string, suspendedAt: Date | null): Promise<OrganizationSummaryRow> {
  return tx.organization.update({ where: { id: orgId }, data: { suspendedAt }, select: summarySelect });
}

export function updateOrganizationRequireTwoFactor(tx: Prisma.TransactionClient, orgId: string, requireTwoFactor: boolean): Promise<OrganizationRow> {
  return tx.organization.update({ where: { id: orgId }, data: { requireTwoFactor } });
}

/** Locks the organization's row until the transaction ends. */
export async function lockOrganization(tx: Prisma.TransactionClient, orgId: string): Promise<void> {
  await tx.$executeRaw`SELECT 1 FROM "Organization" WHERE "id" = ${orgId} FOR UPDATE`;
}

/** Reads whether the organization may have live keys, and locks its row until the transaction ends. */
export async function lockOrganizationForNewKey(tx: Prisma.TransactionClient, orgId: string): Promise<{ liveKeysAllowed: boolean } | undefined> {
  // the organization row is locked so concurrent creates cannot pass the cap together
  const [org] = await tx.$queryRaw<Array<{ liveKeysAllowed: boolean }>>`
      SELECT "liveKeysAllowed" FROM "Organization" WHERE "id" = ${orgId} FOR UPDATE`;
  return org;
}

/** Lets an organization created for testing have live keys. */
export async function allowOrganizationLiveKeys(tx: Prisma.TransactionClient, orgId: string): Promise<OrganizationRow> {
  return tx.organization.update({ where: { id: orgId }, data: { liveKeysAllowed: true } });
}

/** Sets the countries the SMS fraud guard allows. */
export function updateOrganizationSmsCountries(tx: Prisma.TransactionClient, orgId: string, smsCountries: string[]): Promise<OrganizationRow> {
  return tx.organization.update({ where: { id: orgId }, data: { smsCountries } });
}
