import { createOrganization, type Deps } from '@tidings/core';

let counter = 0;

/**
 * A new organization with a full-permission key, so each test works in its own organization.
 * @example const { orgId, key } = await makeOrganization(deps, { mode: 'test' });
 */
export async function makeOrganization(deps: Pick<Deps, 'db'>, options: { name?: string; mode?: 'live' | 'test' } = {}) {
  counter += 1;
  const { organization, apiKey } = await createOrganization(deps, { name: options.name ?? `Org ${counter}`, mode: options.mode ?? 'live' });
  return { orgId: organization.id, key: apiKey.key, keyId: apiKey.id };
}
