import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import type { KeyMode } from '../api-keys/key-secret.ts';
import { findOrganizationLiveKeysAllowed } from './organization.store.ts';

/**
 * The mode the dashboard acts in for an organization: `live`, or `test` while it is made for testing (`--test`,
 * before `tidings orgs allow-live`), so such an organization provisions nothing at a live provider.
 * @example const mode = await organizationMode(deps, orgId); await addEmailDomain(deps, orgId, mode, input);
 */
export async function organizationMode({ db }: Pick<Deps, 'db'>, orgId: string): Promise<KeyMode> {
  const org = await findOrganizationLiveKeysAllowed(db, orgId);
  return org?.liveKeysAllowed ? 'live' : 'test';
}

/**
 * Refuses a test key's change to shared configuration (contacts and their subscriptions, templates, segments, email
 * domains, phone numbers): live sends read it. An organization made for testing has no live sends to protect, so
 * there its test keys may change it.
 * @example assertMayChangeSharedConfiguration(c.get('principal'));
 */
export function assertMayChangeSharedConfiguration(principal: { mode: KeyMode; isLiveAllowed: boolean }): void {
  if (principal.mode === 'test' && principal.isLiveAllowed) {
    throw new AppError(
      'FORBIDDEN',
      'A test key may read but not change what live sends use (contacts, templates, segments, domains and numbers); use a live key or the dashboard.',
    );
  }
}
