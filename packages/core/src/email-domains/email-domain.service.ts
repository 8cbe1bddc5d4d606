import type { OrgContext } from '../request-context.ts';
import type { AddEmailDomainBody, DnsRecord, EmailDomain, ListQuery, SetDefaultSenderBody, UpdateEmailDomainBody } from '@tidings/contracts';
import type { EmailDomain as EmailDomainRow, Prisma } from '@tidings/db';
import { ProviderError, type KeyMode } from '@tidings/providers';
import { auditedChange } from '../audit/audit-log.ts';
import type { Deps } from '../deps.ts';
import { AppError, foundOr404 } from '../errors.ts';
import { newId } from '../ids.ts';
import { paginate, type Page } from '../pagination.ts';
import { refuseTestKeyOnProviderBacked } from '../provider-backed.ts';
import { providerFailure } from '../provider-failure.ts';
import { normalizeDomainName } from './domain-name.ts';
import {
  deleteEmailDomainRow,
  findEmailDomainIdByName,
  findEmailDomainRow,
  insertEmailDomain,
  listEmailDomainsPage,
  updateEmailDomainDefaultSender,
  updateEmailDomainTracking,
} from './email-domain.store.ts';

const PROVIDER = 'email provider';

/** The API's view of a domain row. */
export function toEmailDomain(row: EmailDomainRow): EmailDomain {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    provider: row.provider,
    records: row.records as DnsRecord[],
    defaultSender: row.defaultFromAddress ? { fromName: row.defaultFromName, fromAddress: row.defaultFromAddress, replyTo: row.defaultReplyTo } : null,
    openTracking: row.openTracking,
    clickTracking: row.clickTracking,
    verifiedAt: row.verifiedAt?.toISOString() ?? null,
    lastCheckedAt: row.lastCheckedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The domain, or NOT_FOUND when it is not in this organization. */
export async function findEmailDomain({ db }: Pick<Deps, 'db'>, orgId: string, id: string): Promise<EmailDomainRow> {
  return foundOr404(await findEmailDomainRow(db, orgId, id), 'Email domain');
}

const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === 'P2002';

/**
 * emailDomain.add: validates and normalizes the name, provisions it at the provider (the sandbox for test keys or
 * without Resend) and stores it `pending` with its records. 409 when the organization already has it.
 * @example const domain = await addEmailDomain(deps, orgId, 'live', { name: 'example.com' });
 */
export async function addEmailDomain(deps: Deps, orgId: string, mode: KeyMode, input: AddEmailDomainBody): Promise<EmailDomain> {
  const name = normalizeDomainName(input.name);
  const conflict = () => new AppError('CONFLICT', `Email domain ${name} is already added to this organization`);
  if (await findEmailDomainIdByName(deps.db, orgId, name)) throw conflict();

  const provider = deps.providers.domains({ mode });
  const provisioned = await provider.create(name).catch((error) => {
    if (error instanceof ProviderError && error.reason === 'invalid_domain') {
      throw new AppError('BAD_REQUEST', `name: the email provider does not accept ${name} (it may be registered in another account)`);
    }
    throw providerFailure(deps, error, PROVIDER);
  });
  const records: DnsRecord[] = provisioned.records.map((r) => ({ ...r, status: 'pending' }));
  try {
    const id = newId('dom');
    const row = await auditedChange(deps, { orgId, action: 'emailDomain.added', targetId: id }, (tx) =>
      insertEmailDomain(tx, {
        id,
        orgId,
        name,
        provider: provider.name,
        providerDomainId: provisioned.providerDomainId,
        records: records as Prisma.InputJsonValue,
      }),
    );
    return toEmailDomain(row);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // A concurrent add of the same name won: give back what this one provisioned.
    await provider.delete(provisioned.providerDomainId).catch((e) => deps.logger.warn({ err: e, orgId }, 'could not undo a domain provisioned twice'));
    throw conflict();
  }
}

/** emailDomain.list: newest first. */
export async function listEmailDomains({ reads }: Pick<Deps, 'reads'>, orgId: string, query: ListQuery): Promise<Page<EmailDomain>> {
  return paginate(query, (page) => listEmailDomainsPage(reads, orgId, page), toEmailDomain);
}

/** emailDomain.get: with the DNS status of each record as last checked. */
export async function getEmailDomain(deps: Deps, orgId: string, id: string): Promise<EmailDomain> {
  return toEmailDomain(await findEmailDomain(deps, orgId, id));
}

/**
 * emailDomain.setDefault: the sender message.send uses when `from` is absent. The address must be on this domain.
 * A test key (`mode`) may not change a domain provisioned at a real provider (403).
 * @example await setDefaultSender({ deps, orgId }, id, { fromName: 'Acme', fromAddress: 'hello@example.com' });
 */
export async function setDefaultSender({ deps, orgId, mode }: OrgContext, id: string, input: SetDefaultSenderBody): Promise<EmailDomain> {
  const domain = await findEmailDomain(deps, orgId, id);
  refuseTestKeyOnProviderBacked(mode, domain.provider, `Email domain ${domain.name}`);
  const fromAddress = input.fromAddress.trim();
  const at = fromAddress.lastIndexOf('@');
  if (fromAddress.slice(at + 1).toLowerCase() !== domain.name) {
    throw new AppError('BAD_REQUEST', `fromAddress: must be an address on ${domain.name}`);
  }
  const row = await auditedChange(deps, { orgId, action: 'emailDomain.defaultSenderSet', targetId: domain.id }, (tx) =>
    updateEmailDomainDefaultSender(tx, domain.id, { defaultFromName: input.fromName, defaultFromAddress: fromAddress, defaultReplyTo: input.replyTo ?? null }),
  );
  return toEmailDomain(row);
}

/**
 * emailDomain.update: the domain's tracking settings, for messages accepted afterwards. A test key (`mode`) may not
 * change a domain provisioned at a real provider (403).
 * @example await updateEmailDomain({ deps, orgId }, id, { clickTracking: true });
 */
export async function updateEmailDomain({ deps, orgId, mode }: OrgContext, id: string, input: UpdateEmailDomainBody): Promise<EmailDomain> {
  const domain = await findEmailDomain(deps, orgId, id);
  refuseTestKeyOnProviderBacked(mode, domain.provider, `Email domain ${domain.name}`);
  const row = await auditedChange(deps, { orgId, action: 'emailDomain.updated', targetId: domain.id }, (tx) =>
    updateEmailDomainTracking(tx, domain.id, { openTracking: input.openTracking, clickTracking: input.clickTracking }),
  );
  return toEmailDomain(row);
}

/**
 * emailDomain.delete: removes the domain at the provider that holds it, then here; sending from it is refused
 * afterwards because it is no longer a verified domain of the organization. When the provider is down nothing changes.
 * A test key (`mode`) may not delete a domain provisioned at a real provider (403, the provider is not called).
 */
export async function deleteEmailDomain(deps: Deps, orgId: string, id: string, mode?: KeyMode): Promise<void> {
  const domain = await findEmailDomain(deps, orgId, id);
  refuseTestKeyOnProviderBacked(mode, domain.provider, `Email domain ${domain.name}`);
  if (domain.providerDomainId) {
    await deps.providers
      .domains({ name: domain.provider })
      .delete(domain.providerDomainId)
      .catch((error) => {
        throw providerFailure(deps, error, PROVIDER);
      });
  }
  await auditedChange(deps, { orgId, action: 'emailDomain.deleted', targetId: domain.id }, (tx) => deleteEmailDomainRow(tx, orgId, domain.id));
}
