import type { TemplateListQuery } from '@tidings/contracts';
import { columnsOf, Prisma, type Db, type Template as TemplateRow, type TemplateVersion as VersionRow } from '@tidings/db';
import type { PageArgs } from '../pagination.ts';
import type { TemplateContent } from './template-engine.ts';

/** A version's stored parts: the content, its Reply-To and the variables the content uses. */
type VersionContent = TemplateContent & { replyTo: string[]; variables: string[] };

/** A new template at version 1 with that version, in one statement; the row comes back with its `versions`. */
export async function insertTemplateWithFirstVersion(
  db: Db,
  template: { id: string; orgId: string; name: string; channelType: string },
  first: VersionContent,
): Promise<TemplateRow & { versions: VersionRow[] }> {
  return db.template.create({
    data: { ...template, version: 1, versions: { create: { version: 1, ...first } } },
    include: { versions: true },
  });
}

/** One page of the organization's templates with template.list's filters; soft-deleted ones only with `includeDeleted`. */
export async function listTemplatesPage(
  db: Db,
  orgId: string,
  query: Pick<TemplateListQuery, 'includeDeleted' | 'channelType' | 'name'>,
  { where, ...pageArgs }: PageArgs,
): Promise<TemplateRow[]> {
  return db.template.findMany({
    where: {
      orgId,
      ...(query.includeDeleted ? {} : { deletedAt: null }),
      ...(query.channelType ? { channelType: query.channelType } : {}),
      ...(query.name ? { name: query.name } : {}),
      ...where,
    },
    ...pageArgs,
  });
}

/** The organization's template, soft-deleted or not (null for another organization's id too). */
export async function findOrgTemplate(db: Pick<Db, 'template'>, orgId: string, id: string): Promise<TemplateRow | null> {
  return db.template.findFirst({ where: { id, orgId } });
}

/** The organization's template (not deleted), with its channel, or null: what a broadcast checks its channel against. */
export function findTemplateChannel(db: Db, orgId: string, templateId: string): Promise<{ id: string; channelType: string } | null> {
  return db.template.findFirst({ where: { id: templateId, orgId, deletedAt: null }, select: { id: true, channelType: true } });
}

/** The latest version number of the organization's template (not deleted), or null: what a broadcast that names none pins. */
export function findTemplateLatestVersion(db: Db, orgId: string, templateId: string): Promise<{ version: number } | null> {
  return db.template.findFirst({ where: { id: templateId, orgId, deletedAt: null }, select: { version: true } });
}

/** The organization's templates among `ids`, soft-deleted or not. */
export async function findOrgTemplates(db: Db, orgId: string, ids: string[]): Promise<TemplateRow[]> {
  return db.template.findMany({ where: { orgId, id: { in: ids } } });
}

export async function findTemplateVersionRow(db: Pick<Db, 'templateVersion'>, templateId: string, version: number): Promise<VersionRow | null> {
  return db.templateVersion.findUnique({ where: { templateId_version: { templateId, version } } });
}

/** Exactly the versions named by (templateId, version), in one query; one that does not exist is absent. */
export async function findTemplateVersions(db: Db, keys: { templateId: string; version: number }[]): Promise<VersionRow[]> {
  return db.templateVersion.findMany({ where: { OR: keys } });
}

/** The organization's template unless soft-deleted, locked for the rest of the transaction (versions are numbered under it). */
export async function lockLiveTemplate(tx: Prisma.TransactionClient, orgId: string, id: string): Promise<TemplateRow | undefined> {
  const [template] = await tx.$queryRaw<TemplateRow[]>`
      SELECT ${columnsOf(Prisma.TemplateScalarFieldEnum)} FROM "Template" WHERE "id" = ${id} AND "orgId" = ${orgId} AND "deletedAt" IS NULL FOR UPDATE`;
  return template;
}

/** The version, which must exist (Prisma's not-found error otherwise). */
export async function findTemplateVersionOrThrow(tx: Prisma.TransactionClient, templateId: string, version: number): Promise<VersionRow> {
  return tx.templateVersion.findUniqueOrThrow({ where: { templateId_version: { templateId, version } } });
}

export async function insertTemplateVersion(tx: Prisma.TransactionClient, row: { templateId: string; version: number } & VersionContent): Promise<VersionRow> {
  return tx.templateVersion.create({ data: row });
}

/** Points the template at its new latest version, renaming it when `name` is given. */
export async function setLatestTemplateVersion(tx: Prisma.TransactionClient, id: string, version: number, name: string | undefined): Promise<TemplateRow> {
  return tx.template.update({ where: { id }, data: { version, name } });
}

/** Soft-deletes the organization's template; how many rows changed (0: none, or already deleted). */
export async function softDeleteTemplate(db: Db, orgId: string, id: string, at: Date): Promise<number> {
  const { count } = await db.template.updateMany({ where: { id, orgId, deletedAt: null }, data: { deletedAt: at } });
  return count;
}

/** One page of a template's versions, newest first, below version `before` when given. */
export async function listTemplateVersionsPage(db: Db, templateId: string, page: { before: number | undefined; take: number; skip: number }): Promise<VersionRow[]> {
  return db.templateVersion.findMany({
    where: { templateId, ...(page.before !== undefined ? { version: { lt: page.before } } : {}) },
    orderBy: { version: 'desc' },
    take: page.take,
    skip: page.skip,
  });
}
