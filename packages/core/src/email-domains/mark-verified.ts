import type { DnsRecord, EmailDomain } from '@tidings/contracts';
import type { Prisma } from '@tidings/db';
import { recordAudit } from '../audit/audit-log.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { recordEvents } from '../events.ts';
import { unitOfWork } from '../unit-of-work.ts';
import { normalizeDomainName } from './domain-name.ts';
import { findEmailDomain, toEmailDomain } from './email-domain.service.ts';
import { findEmailDomainIdByName, markEmailDomainRowVerified } from './email-domain.store.ts';

/**
 * `tidings domains mark-verified`: on a development install only, marks an organization's domain verified without
 * asking DNS, so live email (the sandbox takes it while no provider is configured), its unsubscribe and preference
 * links and its tracking can be tried on a laptop. Audited (`emailDomain.markedVerified`) with its
 * `emailDomain.verified` event. Production refuses it (FORBIDDEN): there a domain is verified by its DNS records only.
 * @example await markEmailDomainVerified(deps, 'org_...', 'example.test') // { status: 'verified', ... }
 */
export async function markEmailDomainVerified(deps: Deps, orgId: string, name: string): Promise<EmailDomain> {
  if (deps.config.env === 'production') throw new AppError('FORBIDDEN', 'Only a development install marks a domain verified by hand: in production DNS verifies it');
  const found = await findEmailDomainIdByName(deps.db, orgId, normalizeDomainName(name));
  if (!found) throw new AppError('NOT_FOUND', `Domain ${name} not found in this organization: add it first (POST /v1/domains or the dashboard's Domains page)`);
  const row = await findEmailDomain(deps, orgId, found.id);
  const records = (row.records as DnsRecord[]).map((r) => ({ ...r, status: 'verified' as const }));
  const now = deps.now();
  return unitOfWork(deps, async (tx, outbox) => {
    const updated = toEmailDomain(await markEmailDomainRowVerified(tx, row.id, records as Prisma.InputJsonValue, now));
    await recordAudit(tx, deps.actor, { orgId, action: 'emailDomain.markedVerified', targetId: row.id });
    if (row.status !== 'verified') outbox.add(await recordEvents(tx, [{ orgId, type: 'emailDomain.verified', data: updated as Prisma.InputJsonValue }]));
    return updated;
  });
}
