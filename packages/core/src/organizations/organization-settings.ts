import type { Organization, UpdateOrganizationBody } from '@tidings/contracts';
import { auditedChange } from '../audit/audit-log.ts';
import type { Deps } from '../deps.ts';
import { foundOr404 } from '../errors.ts';
import { allowedSmsCountries } from '../sms/sms-fraud-guard.ts';
import { findOrganization, updateOrganizationSmsCountries } from './organization.store.ts';

/**
 * organization.get: its name and the countries an SMS may go to (unless set, those of its numbers).
 * @example const { smsCountries } = await getOrganizationSettings(deps, orgId);
 */
export async function getOrganizationSettings(deps: Pick<Deps, 'db'>, orgId: string): Promise<Organization> {
  const [org, smsCountries] = await Promise.all([findOrganization(deps.db, orgId), allowedSmsCountries(deps, orgId)]);
  const row = foundOr404(org, 'Organization');
  return { id: row.id, name: row.name, smsCountries, createdAt: row.createdAt.toISOString() };
}

/**
 * organization.update: `smsCountries` (deduplicated, sorted), with an `organization.updated` audit row.
 * @example await updateOrganizationSettings(deps, orgId, { smsCountries: ['US', 'CA'] });
 */
export async function updateOrganizationSettings(deps: Pick<Deps, 'db' | 'actor'>, orgId: string, input: UpdateOrganizationBody): Promise<Organization> {
  if (input.smsCountries) {
    const countries = [...new Set(input.smsCountries)].sort();
    await auditedChange(deps, { orgId, action: 'organization.updated', targetId: orgId }, (tx) => updateOrganizationSmsCountries(tx, orgId, countries));
  }
  return getOrganizationSettings(deps, orgId);
}
