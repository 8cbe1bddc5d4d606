import type {
  CreateTemplateBody,
  PreviewTemplateBody,
  Template,
  TemplateGetQuery,
  TemplateListQuery,
  TemplatePreview,
  TemplateVersionsQuery,
  UpdateTemplateBody,
} from '@tidings/contracts';
import type { Template as TemplateRow, TemplateVersion as VersionRow } from '@tidings/db';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import { decodeCursor, encodeCursor, paginate, type Page } from '../pagination.ts';
import { parseEmail } from '../messages/recipients.ts';
import { countSmsSegments } from '../sms/segments.ts';
import type { TemplateContent } from './template-engine.ts';
import { findTemplateVersion, toTemplate } from './template-versions.ts';
import {
  findTemplateVersionOrThrow,
  findTemplateVersions,
  insertTemplateVersion,
  insertTemplateWithFirstVersion,
  listTemplatesPage,
  listTemplateVersionsPage,
  lockLiveTemplate,
  setLatestTemplateVersion,
  softDeleteTemplate,
} from './template.store.ts';

const notFound = (reason: 'template' | 'deleted' | 'version') => new AppError('NOT_FOUND', reason === 'version' ? 'Template version not found' : 'Template not found');

/**
 * template.create: version 1. The content is parsed now (on a render thread), so a broken template is a 400 naming the part.
 * @example await createTemplate(deps, orgId, { name: 'OTP', channelType: 'sms', body: 'Your code is {{ code }}' }) // version 1, variables ['code']
 */
export async function createTemplate({ db, renderer }: Pick<Deps, 'db' | 'renderer'>, orgId: string, input: CreateTemplateBody): Promise<Template> {
  const content = { subject: input.subject ?? null, html: input.html ?? null, text: input.text ?? null, body: input.body ?? null };
  const variables = await renderer.analyze(content, { orgId });
  const replyTo = replyToAddresses(input.replyTo);
  const template = await insertTemplateWithFirstVersion(db, { id: newId('tpl'), orgId, name: input.name, channelType: input.channelType }, { ...content, replyTo, variables });
  return toTemplate(template, template.versions[0]!);
}

/**
 * template.list: the latest version of each, newest template first; soft-deleted ones only with `includeDeleted`.
 * @example await listTemplates(deps, orgId, { limit: 20, offset: 0, channelType: 'email', includeDeleted: false })
 */
export async function listTemplates({ reads }: Pick<Deps, 'reads'>, orgId: string, query: TemplateListQuery): Promise<Page<Template>> {
  // May be served by a replica: the page and its versions from the same server, where each template has its version
  return reads.run(async (db) => {
    const page = await paginate(
      query,
      (pageArgs) => listTemplatesPage(db, orgId, query, pageArgs),
      (row) => row,
    );
    // The latest version of each, in one query by exact (templateId, version): an include with `take` would read
    // every version of every template on the page.
    const latestKeys = page.data.map((t) => ({ templateId: t.id, version: t.version }));
    const versions = latestKeys.length ? await findTemplateVersions(db, latestKeys) : [];
    const latest = new Map(versions.map((v) => [v.templateId, v]));
    return { ...page, data: page.data.map((t) => toTemplate(t, latest.get(t.id)!)) };
  });
}

/**
 * template.get: the latest version, or `version`; a soft-deleted template is 404 unless `includeDeleted`.
 * @example await getTemplate(deps, orgId, id, { version: 1 }) // the first version, even after updates
 */
export async function getTemplate({ db }: Pick<Deps, 'db'>, orgId: string, id: string, query: TemplateGetQuery): Promise<Template> {
  const found = await findTemplateVersion(db, orgId, id, query);
  if (!found.found) throw notFound(found.reason);
  return toTemplate(found.template, found.version);
}

/** `replyTo` as stored: a list, each address checked (display names allowed), or BAD_REQUEST naming `replyTo.index`. */
function replyToAddresses(given: string | string[] | null | undefined): string[] {
  const list = given === undefined || given === null ? [] : Array.isArray(given) ? given : [given];
  return list.map((raw, index) => {
    const parsed = parseEmail(raw, { allowName: true });
    if (!parsed) throw new AppError('BAD_REQUEST', `replyTo.${index}: must be a valid email address`);
    return parsed.name ? raw.trim() : parsed.address;
  });
}

/** The content after `changes`, checked against the channel's rules (what create checks, for the merged result). */
function mergedContent(channelType: string, latest: VersionRow, changes: UpdateTemplateBody): TemplateContent {
  const merged = {
    subject: changes.subject ?? latest.subject,
    html: changes.html === undefined ? latest.html : changes.html,
    text: changes.text === undefined ? latest.text : changes.text,
    body: changes.body ?? latest.body,
  };
  if (channelType === 'email') {
    if (changes.body !== undefined) throw new AppError('BAD_REQUEST', 'body: only sms templates have a body');
    if (!merged.html && !merged.text) throw new AppError('BAD_REQUEST', 'html: an email template needs html or text');
  } else {
    for (const field of ['subject', 'html', 'text', 'replyTo'] as const) {
      if (changes[field] !== undefined) throw new AppError('BAD_REQUEST', `${field}: only email templates have one`);
    }
  }
  return merged;
}

/**
 * template.update: writes version N+1 from the latest version and `changes`; older versions stay as they were, so
 * messages already accepted (and sends naming an older `templateVersion`) are unaffected. The template row is
 * locked, so two concurrent updates get N+1 and N+2.
 * @example await updateTemplate(deps, orgId, id, { body: 'Code: {{ code }}' }) // { version: 2, ... }
 */
export async function updateTemplate({ db, renderer }: Pick<Deps, 'db' | 'renderer'>, orgId: string, id: string, changes: UpdateTemplateBody): Promise<Template> {
  return db.$transaction(async (tx) => {
    const template = await lockLiveTemplate(tx, orgId, id);
    if (!template) throw notFound('template');
    const latest = await findTemplateVersionOrThrow(tx, template.id, template.version);
    const content = mergedContent(template.channelType, latest, changes);
    const replyTo = changes.replyTo === undefined ? latest.replyTo : replyToAddresses(changes.replyTo);
    const variables = await renderer.analyze(content, { orgId });
    const version = await insertTemplateVersion(tx, { templateId: template.id, version: template.version + 1, ...content, replyTo, variables });
    const updated = await setLatestTemplateVersion(tx, template.id, version.version, changes.name);
    return toTemplate(updated, version);
  });
}

/**
 * template.delete: soft. Get and list hide it (unless `includeDeleted`), and sending with it is refused.
 * @example await deleteTemplate(deps, orgId, id); // get now 404s unless includeDeleted
 */
export async function deleteTemplate({ db, now }: Pick<Deps, 'db' | 'now'>, orgId: string, id: string): Promise<void> {
  const count = await softDeleteTemplate(db, orgId, id, now());
  if (count === 0) throw notFound('template');
}

/**
 * template.listVersions: every version, newest first; the cursor carries the version number.
 * @example await listTemplateVersions(deps, orgId, id, { limit: 20, offset: 0 }) // versions N..1
 */
export async function listTemplateVersions({ db }: Pick<Deps, 'db'>, orgId: string, id: string, query: TemplateVersionsQuery): Promise<Page<Template>> {
  const found = await findTemplateVersion(db, orgId, id, { includeDeleted: query.includeDeleted });
  if (!found.found) throw notFound(found.reason);
  const before = query.cursor ? Number(decodeCursor(query.cursor).id) : undefined;
  // the version column is an int4: a forged cursor outside it is bad input, not a database error
  if (before !== undefined && !(Number.isInteger(before) && before >= 1 && before <= 2_147_483_647)) throw new AppError('BAD_REQUEST', 'cursor: not a cursor from this API');
  const rows = await listTemplateVersionsPage(db, found.template.id, { before, take: query.limit + 1, skip: query.offset });
  const hasMore = rows.length > query.limit;
  const pageRows = hasMore ? rows.slice(0, query.limit) : rows;
  const last = pageRows.at(-1);
  return {
    data: pageRows.map((v) => toTemplate(found.template, v)),
    hasMore,
    nextCursor: hasMore && last ? encodeCursor({ createdAt: last.createdAt, id: String(last.version) }) : null,
  };
}

/**
 * template.preview: renders a version (the latest by default) with `variables`; sends nothing. SMS gets its segments.
 * @example await previewTemplate(deps, orgId, id, { variables: { code: '42' } }) // { body: 'Your code is 42', segments: 1, encoding: 'GSM-7', ... }
 */
export async function previewTemplate({ db, renderer }: Pick<Deps, 'db' | 'renderer'>, orgId: string, id: string, input: PreviewTemplateBody): Promise<TemplatePreview> {
  const found = await findTemplateVersion(db, orgId, id, { version: input.version });
  if (!found.found) throw notFound(found.reason);
  return renderPreview(renderer, found.template, found.version.version, found.version, input.variables);
}

/**
 * template.preview of changes not saved yet (the dashboard's editor): the latest version with `changes`, checked as
 * template.update checks them (a broken part is a 400 naming it), rendered like template.preview; nothing is written.
 * @example await previewTemplateChanges(deps, orgId, id, { changes: { body: 'Code: {{ code }}' }, variables: { code: '42' } }) // { body: 'Code: 42', ... }
 */
export async function previewTemplateChanges(
  { db, renderer }: Pick<Deps, 'db' | 'renderer'>,
  orgId: string,
  id: string,
  { changes, variables }: { changes: UpdateTemplateBody; variables: PreviewTemplateBody['variables'] },
): Promise<TemplatePreview> {
  const found = await findTemplateVersion(db, orgId, id, {});
  if (!found.found) throw notFound(found.reason);
  const content = mergedContent(found.template.channelType, found.version, changes);
  await renderer.analyze(content, { orgId }); // parses each part: a broken one is refused here, naming it
  return renderPreview(renderer, found.template, found.version.version, content, variables);
}

async function renderPreview(
  renderer: Deps['renderer'],
  template: TemplateRow,
  version: number,
  content: TemplateContent,
  variables: PreviewTemplateBody['variables'],
): Promise<TemplatePreview> {
  const [rendered] = await renderer.render([{ templateId: template.id, content, variables }], { orgId: template.orgId });
  if (rendered instanceof AppError) throw rendered;
  const sms = template.channelType === 'sms' && rendered.body !== null ? countSmsSegments(rendered.body) : null;
  return {
    templateId: template.id,
    version,
    channelType: template.channelType as TemplatePreview['channelType'],
    ...rendered,
    segments: sms?.segments ?? null,
    encoding: sms?.encoding ?? null,
  };
}
