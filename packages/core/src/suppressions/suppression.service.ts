import type { CreateSuppressionBody, Suppression, SuppressionListQuery } from '@tidings/contracts';
import type { Suppression as SuppressionRow } from '@tidings/db';
import type { KeyMode } from '@tidings/providers';
import { auditedChange } from '../audit/audit-log.ts';
import type { Deps } from '../deps.ts';
import { AppError, foundOr404 } from '../errors.ts';
import { parseE164, parseEmail } from '../messages/recipients.ts';
import { paginate, type Page } from '../pagination.ts';
import { deleteOrgSuppression, findSuppression, insertSuppressionIfAbsent, listSuppressionsPage } from './suppression.store.ts';

/**
 * The API's view of a suppression row; the channel follows from the recipient (email addresses hold an `@`).
 * @example c.json(toSuppression(row), 201)
 */
export function toSuppression(row: SuppressionRow): Suppression {
  return {
    id: row.id,
    channelType: row.recipient.includes('@') ? 'email' : 'sms',
    address: row.recipient,
    mode: row.mode,
    reason: row.reason,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The recipient as sends compare it (lower-cased email, E.164), or 400 naming `address`. */
function normalizedAddress(channelType: 'email' | 'sms', address: string): string {
  const normalized = channelType === 'email' ? (parseEmail(address.trim())?.address ?? null) : parseE164(address.trim());
  if (!normalized) {
    throw new AppError(
      'BAD_REQUEST',
      channelType === 'email' ? 'address: must be a valid email address for channelType email' : 'address: must be a valid E.164 phone number for channelType sms',
    );
  }
  return normalized;
}

/**
 * suppression.list: newest first; filters `channelType`, `reason` and `address` (compared as sends compare it); with
 * `mode` (an API key's) only that mode's.
 * @example const page = await listSuppressions(deps, orgId, { limit: 20, offset: 0, reason: 'stopped' }, 'live');
 */
export async function listSuppressions({ reads }: Pick<Deps, 'reads'>, orgId: string, query: SuppressionListQuery, mode?: KeyMode): Promise<Page<Suppression>> {
  return paginate(query, (page) => listSuppressionsPage(reads, orgId, { query, mode }, page), toSuppression);
}

/**
 * One suppression of the organization (NOT_FOUND for another's id, and with `mode` for another mode's), for a page
 * that asks before lifting it.
 * @example const suppression = await getSuppression(deps, orgId, 'sup_...');
 */
export async function getSuppression({ db }: Pick<Deps, 'db'>, orgId: string, id: string, mode?: KeyMode): Promise<Suppression> {
  return toSuppression(foundOr404(await findSuppression(db, orgId, id, mode), 'Suppression'));
}

/**
 * suppression.create: blocks sends to the address (reason `manual`) on the list of `mode` (a test one stops only
 * test sends); 409 when it is already on that list, whatever the reason.
 * @example await createSuppression(deps, orgId, { channelType: 'email', address: 'ada@example.com' }, 'live');
 */
export async function createSuppression(deps: Pick<Deps, 'db' | 'actor'>, orgId: string, input: CreateSuppressionBody, mode: KeyMode = 'live'): Promise<Suppression> {
  const recipient = normalizedAddress(input.channelType, input.address);
  const row = await auditedChange(deps, { orgId, action: 'suppression.created', targetId: (created: SuppressionRow) => created.id }, async (tx) => {
    const created = await insertSuppressionIfAbsent(tx, { orgId, recipient, mode, reason: input.reason ?? 'manual' });
    if (!created) throw new AppError('CONFLICT', `${recipient} is already suppressed`);
    return created;
  });
  return toSuppression(row);
}

/**
 * suppression.delete: lifts it, whatever its reason, so the next send goes out (a bounced address can be tried
 * again). The contact's subscription flags are left as they are. With `mode` (an API key's), another mode's is
 * NOT_FOUND: a test key never lifts a live suppression.
 * @example await deleteSuppression(deps, orgId, 'sup_...', 'test');
 */
export async function deleteSuppression(deps: Pick<Deps, 'db' | 'actor'>, orgId: string, id: string, mode?: KeyMode): Promise<void> {
  await auditedChange(deps, { orgId, action: 'suppression.deleted', targetId: id }, async (tx) => {
    const count = await deleteOrgSuppression(tx, orgId, id, mode);
    foundOr404(count === 0 ? null : count, 'Suppression');
  });
}
