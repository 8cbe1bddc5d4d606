import type { PhoneNumber, PurchasePhoneNumberBody } from '@tidings/contracts';
import type { Prisma } from '@tidings/db';
import { isFictionalNumber, ProviderError, type KeyMode, type NumberType } from '@tidings/providers';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { recordAudit } from '../audit/audit-log.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { recordEvents } from '../events.ts';
import { newId } from '../ids.ts';
import { unitOfWork } from '../unit-of-work.ts';
import { refuseTestKeyOnProviderBacked } from '../provider-backed.ts';
import { providerFailure } from '../provider-failure.ts';
import { findPhoneNumber, NUMBER_PROVIDER, toPhoneNumber } from './phone-number.service.ts';
import { deletePhoneNumber, findNumberOwner, hasDefaultNumber, insertPhoneNumber, lockDefaultNumber } from './phone-number.store.ts';

const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === 'P2002';

/** The same words whoever owns it: telling "yours" from "another tenant's" would tell who holds which number. */
function alreadyOwned(number: string): AppError {
  return new AppError('CONFLICT', `Phone number ${number} is not available`);
}

/** What the number itself says of its type and country, for providers whose order does not (Twilio). */
function describeNumber(number: string): { type: NumberType; country: string | null } {
  const parsed = parsePhoneNumberFromString(number);
  const kind = parsed?.getType();
  return { type: kind === 'TOLL_FREE' ? 'tollFree' : kind === 'MOBILE' ? 'mobile' : 'local', country: parsed?.country ?? null };
}

/**
 * phoneNumber.purchase: orders the number at the provider (the first of SMS_PROVIDERS that sells numbers; the sandbox
 * for test keys or without Telnyx and Twilio) and stores it, with a `phoneNumber.purchased` event in the same
 * transaction. The organization's first number becomes its default. 409 when anyone on this install owns it, or when
 * the provider says it is no longer available. A test key buys only from the fictional range (+1 NXX 555-01xx, 400
 * otherwise), so it never blocks a real number.
 * @example const number = await purchasePhoneNumber(deps, orgId, 'live', { number: '+14155550123' });
 */
export async function purchasePhoneNumber(deps: Deps, orgId: string, mode: KeyMode, input: PurchasePhoneNumberBody): Promise<PhoneNumber> {
  const { number } = input;
  if (mode === 'test' && !isFictionalNumber(number)) {
    throw new AppError(
      'BAD_REQUEST',
      `number: an sk_test_ key buys only sandbox numbers from the fictional range +1 NXX 555-0100 to 555-0199 (such as +14155550142); phoneNumber.searchAvailable with this key offers them`,
    );
  }
  const existing = await findNumberOwner(deps.db, number);
  if (existing) throw alreadyOwned(number);

  const id = newId('pn');
  const provider = deps.providers.numbers({ mode });
  const ordered = await provider.order(number, { reference: id }).catch((error) => {
    if (error instanceof ProviderError && error.reason === 'number_unavailable') {
      throw new AppError('CONFLICT', `Phone number ${number} is no longer available; search again and pick another`);
    }
    throw providerFailure(deps, error, NUMBER_PROVIDER);
  });

  const described = ordered.type && ordered.country ? null : describeNumber(number);
  try {
    const row = await unitOfWork(deps, async (tx, outbox) => {
      await lockDefaultNumber(tx, orgId);
      const hasDefault = await hasDefaultNumber(tx, orgId);
      const created = await insertPhoneNumber(tx, {
        id,
        orgId,
        number,
        friendlyName: input.friendlyName ?? null,
        isDefault: !hasDefault,
        type: ordered.type ?? described!.type,
        country: ordered.country || described?.country || null,
        provider: provider.name,
        providerNumberId: ordered.providerNumberId,
      });
      outbox.add(await recordEvents(tx, [{ orgId, type: 'phoneNumber.purchased', data: toPhoneNumber(created) as Prisma.InputJsonValue }]));
      await recordAudit(tx, deps.actor, { orgId, action: 'phoneNumber.purchased', targetId: id });
      return created;
    });
    return toPhoneNumber(row);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // Another organization here stored it first (only possible with the sandbox, which never runs out).
    throw alreadyOwned(number);
  }
}

/**
 * phoneNumber.release: gives the number back at the provider, then deletes it here with a `phoneNumber.released`
 * event, so it is not found afterwards and cannot send. When the provider is down nothing changes. A test key
 * (`mode`) may not release a number provisioned at a real provider (403, the provider is not called).
 * @example await releasePhoneNumber(deps, orgId, 'pn_...');
 */
export async function releasePhoneNumber(deps: Deps, orgId: string, id: string, mode?: KeyMode): Promise<void> {
  const current = await findPhoneNumber(deps, orgId, id);
  refuseTestKeyOnProviderBacked(mode, current.provider, `Phone number ${current.number}`);
  await deps.providers
    .numbers({ name: current.provider })
    .release(current.number, current.providerNumberId)
    .catch((error) => {
      throw providerFailure(deps, error, NUMBER_PROVIDER);
    });
  await unitOfWork(deps, async (tx, outbox) => {
    const { count } = await deletePhoneNumber(tx, orgId, id);
    if (count === 0) return;
    await recordAudit(tx, deps.actor, { orgId, action: 'phoneNumber.released', targetId: id });
    outbox.add(await recordEvents(tx, [{ orgId, type: 'phoneNumber.released', data: toPhoneNumber(current) as Prisma.InputJsonValue }]));
  });
}
