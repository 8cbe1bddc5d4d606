import type { ApiKeyWithSecret } from '@tidings/contracts';
import { insertApiKey } from '../api-keys/api-key.service.ts';
import { recordAudit } from '../audit/audit-log.ts';
import type { Deps } from '../deps.ts';
import { newId } from '../ids.ts';
import { insertOrganization } from './organization.store.ts';

export type Organization = { id: string; name: string; createdAt: string };

/**
 * Creates an organization and its first key (full permission) in one transaction; the key's creation is audited
 * (`apiKey.created`) when an actor makes it (the CLI's `orgs create`).
 * @example const { organization, apiKey } = await createOrganization(deps, { name: 'Acme', mode: 'live' });
 */
export async function createOrganization(
  { db, actor }: Pick<Deps, 'db' | 'actor'>,
  input: { name: string; mode: 'live' | 'test' },
): Promise<{ organization: Organization; apiKey: ApiKeyWithSecret }> {
  return db.$transaction(async (tx) => {
    // an organization made for testing gets no live key from the dashboard until an operator allows it
    const org = await insertOrganization(tx, { id: newId('org'), name: input.name, liveKeysAllowed: input.mode === 'live' });
    const apiKey = await insertApiKey(tx, org.id, { name: 'Default key', permission: 'full', mode: input.mode });
    await recordAudit(tx, actor, { orgId: org.id, action: 'apiKey.created', targetId: apiKey.id });
    return { organization: { id: org.id, name: org.name, createdAt: org.createdAt.toISOString() }, apiKey };
  });
}
