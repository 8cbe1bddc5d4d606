import type { OrgContext } from '../request-context.ts';
import type { AvailablePhoneNumber, KeywordReplies, ListQuery, PhoneNumber, PhoneNumberType, SearchPhoneNumbersQuery, UpdatePhoneNumberBody } from '@tidings/contracts';
import { defaultMessagesPerSecond } from '@tidings/contracts';
import type { PhoneNumber as PhoneNumberRow } from '@tidings/db';
import type { KeyMode } from '@tidings/providers';
import { recordAudit } from '../audit/audit-log.ts';
import type { Deps } from '../deps.ts';
import { foundOr404 } from '../errors.ts';
import { paginate, type Page } from '../pagination.ts';
import { refuseTestKeyOnProviderBacked } from '../provider-backed.ts';
import { providerFailure } from '../provider-failure.ts';
import {
  findOwnedNumbers,
  findPhoneNumberById,
  findPhoneNumberRow,
  listPhoneNumbersPage,
  lockDefaultNumber,
  unsetOtherDefaultNumbers,
  updatePhoneNumberRow,
} from './phone-number.store.ts';

export const NUMBER_PROVIDER = 'phone number provider';

/** The API's view of a number row. */
export function toPhoneNumber(row: PhoneNumberRow): PhoneNumber {
  return {
    id: row.id,
    number: row.number,
    friendlyName: row.friendlyName,
    isDefault: row.isDefault,
    type: row.type as PhoneNumberType,
    country: row.country,
    provider: row.provider,
    replies: row.replies as KeywordReplies,
    messagesPerSecond: row.messagesPerSecond ?? defaultMessagesPerSecond(row.type),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The number, or NOT_FOUND when this organization does not own it (released numbers are gone). */
export async function findPhoneNumber({ db }: Pick<Deps, 'db'>, orgId: string, id: string): Promise<PhoneNumberRow> {
  return foundOr404(await findPhoneNumberRow(db, orgId, id), 'Phone number');
}

/**
 * phoneNumber.searchAvailable: the inventory of the provider a purchase would use (the sandbox's for test keys or
 * without Telnyx and Twilio), less the numbers someone on this install already owns; at most `limit`.
 * @example const { data } = await searchAvailableNumbers(deps, orgId, 'live', { country: 'US', areaCode: '415', limit: 5 });
 */
export async function searchAvailableNumbers(deps: Deps, _orgId: string, mode: KeyMode, query: SearchPhoneNumbersQuery): Promise<{ data: AvailablePhoneNumber[] }> {
  const provider = deps.providers.numbers({ mode });
  // asks for more than `limit`, so numbers owned here still leave `limit` to offer
  const found = await provider.searchAvailable({ ...query, limit: Math.min(query.limit * 2, 100) }).catch((error) => {
    throw providerFailure(deps, error, NUMBER_PROVIDER);
  });
  if (found.length === 0) return { data: [] };
  const owned = await findOwnedNumbers(
    deps.db,
    found.map((n) => n.number),
  );
  const ownedNumbers = new Set(owned.map((o) => o.number));
  return { data: found.filter((n) => !ownedNumbers.has(n.number)).slice(0, query.limit) };
}

/** phoneNumber.list: newest first. */
export async function listPhoneNumbers({ reads }: Pick<Deps, 'reads'>, orgId: string, query: ListQuery): Promise<Page<PhoneNumber>> {
  return paginate(query, (page) => listPhoneNumbersPage(reads, orgId, page), toPhoneNumber);
}

/** phoneNumber.get */
export async function getPhoneNumber(deps: Deps, orgId: string, id: string): Promise<PhoneNumber> {
  return toPhoneNumber(await findPhoneNumber(deps, orgId, id));
}

/**
 * phoneNumber.update: `friendlyName` (mirrored to the provider's record), `isDefault`, the keyword `replies` and
 * `messagesPerSecond` (the number's pace; null: its type's default). Making a number the
 * default unsets the previous one in the same transaction; unsetting it leaves the organization without a default.
 * A test key (`mode`) may not change a number provisioned at a real provider (403).
 * @example await updatePhoneNumber({ deps, orgId }, 'pn_...', { isDefault: true });
 */
export async function updatePhoneNumber({ deps, orgId, mode }: OrgContext, id: string, input: UpdatePhoneNumberBody): Promise<PhoneNumber> {
  const current = await findPhoneNumber(deps, orgId, id);
  refuseTestKeyOnProviderBacked(mode, current.provider, `Phone number ${current.number}`);
  if (input.friendlyName !== undefined && input.friendlyName !== current.friendlyName) {
    await deps.providers
      .numbers({ name: current.provider })
      .update(current.number, current.providerNumberId, { friendlyName: input.friendlyName })
      .catch((error) => {
        throw providerFailure(deps, error, NUMBER_PROVIDER);
      });
  }
  const row = await deps.db.$transaction(async (tx) => {
    if (input.isDefault !== undefined) await lockDefaultNumber(tx, orgId);
    if (input.isDefault === true) {
      await unsetOtherDefaultNumbers(tx, orgId, id);
    }
    const { count } = await updatePhoneNumberRow(tx, orgId, id, input);
    // Released while we talked to the provider.
    const updated = foundOr404(count === 0 ? null : await findPhoneNumberById(tx, id), 'Phone number');
    await recordAudit(tx, deps.actor, { orgId, action: 'phoneNumber.updated', targetId: id });
    return updated;
  });
  return toPhoneNumber(row);
}
