import { telnyxTypeOf, type AvailableNumber, type NumberProvider, type NumberType } from './number-provider.ts';
import { callNumberProvider, numberProviderError, type NumberProviderFailures } from './number-provider-error.ts';
import { ProviderError } from './provider-error.ts';
import { REQUEST_TIMEOUT_MS } from './request-timeout.ts';

// Required when a provider is made, not imported: the SDK holds ~16 MiB, which every process would carry even with
// Telnyx unused (node caches it: later calls cost a lookup).
const telnyxSdk = () => require('telnyx') as typeof import('telnyx');

const ourTypeOf = (type: string | undefined): NumberType => (type === 'toll_free' || type === 'tollfree' ? 'tollFree' : type === 'mobile' ? 'mobile' : 'local');

/** Telnyx's failures: the SDK's APIError carries the status (none: no answer). */
const telnyxFailures: NumberProviderFailures = {
  provider: 'telnyx',
  label: 'Telnyx',
  failureOf: (error) => ({ status: error instanceof telnyxSdk().APIError ? error.status : undefined }),
};

const call = <T>(operation: string, run: () => Promise<T>, options?: { unavailableOn4xx?: boolean }) => callNumberProvider(telnyxFailures, operation, run, options);

/**
 * Phone numbers through Telnyx's number search, number orders and phone numbers APIs with the official SDK.
 * @example const numbers = createTelnyxNumberProvider({ apiKey: config.telnyx.apiKey!, baseUrl: config.telnyx.baseUrl });
 * const found = await numbers.searchAvailable({ country: 'US', areaCode: '415', limit: 5 });
 */
export function createTelnyxNumberProvider(options: { apiKey: string; baseUrl?: string; messagingProfileId?: string }): NumberProvider {
  const telnyx = new (telnyxSdk().Telnyx)({ apiKey: options.apiKey, baseURL: options.baseUrl, timeout: REQUEST_TIMEOUT_MS, maxRetries: 1, logLevel: 'off' });

  async function findNumberId(number: string): Promise<string | null> {
    const page = await call('phone number look-up', () => telnyx.phoneNumbers.list({ filter: { phone_number: number } }));
    return page.data.find((n) => n.phone_number === number)?.id ?? null;
  }

  return {
    name: 'telnyx',
    async searchAvailable(query) {
      const response = await call('number search', () =>
        telnyx.availablePhoneNumbers.list({
          filter: {
            country_code: query.country,
            national_destination_code: query.areaCode,
            phone_number: query.contains ? { contains: query.contains } : undefined,
            phone_number_type: query.type ? telnyxTypeOf[query.type] : undefined,
            features: ['sms'],
            limit: query.limit,
          },
        }),
      );
      return (response.data ?? []).flatMap((n): AvailableNumber[] => {
        if (!n.phone_number) return [];
        const regionOf = (kind: string) => n.region_information?.find((r) => r.region_type === kind)?.region_name ?? null;
        const cost = n.cost_information;
        return [
          {
            number: n.phone_number,
            type: query.type ?? 'local',
            country: regionOf('country_code') ?? query.country,
            region: regionOf('state'),
            locality: regionOf('location') ?? regionOf('rate_center'),
            features: (n.features ?? []).flatMap((f) => (f.name ? [f.name] : [])),
            monthlyCost: cost?.monthly_cost ? { amount: String(cost.monthly_cost), currency: cost.currency ?? 'USD' } : null,
          },
        ];
      });
    },
    async order(number, { reference }) {
      // No retry of the order itself: a second POST could buy twice. A 4xx means the number is gone.
      const response = await call(
        'number order',
        () =>
          telnyx.numberOrders.create(
            // on the messaging profile, so the number can send as soon as it is ours
            { phone_numbers: [{ phone_number: number }], customer_reference: reference, messaging_profile_id: options.messagingProfileId },
            { maxRetries: 0 },
          ),
        { unavailableOn4xx: true },
      );
      const order = response.data;
      const ordered = order?.phone_numbers?.find((n) => n.phone_number === number);
      if (!order || order.status === 'failure' || ordered?.status === 'failure') {
        throw new ProviderError('telnyx', 'Telnyx number order failed', { isRetryable: false, reason: 'number_unavailable' });
      }
      // The order's entry is not the phone number resource; its id comes from the inventory once it exists.
      const providerNumberId = await findNumberId(number).catch(() => null);
      return { providerNumberId, type: ourTypeOf(ordered?.phone_number_type), country: ordered?.country_iso_alpha2 ?? ordered?.country_code ?? '' };
    },
    async update(number, providerNumberId, changes) {
      const id = providerNumberId ?? (await findNumberId(number));
      if (!id) return;
      await call('phone number update', () => telnyx.phoneNumbers.update(id, { customer_reference: changes.friendlyName ?? '' }));
    },
    async release(number, providerNumberId) {
      const id = providerNumberId ?? (await findNumberId(number));
      if (!id) return; // Telnyx no longer has it: nothing to give back
      try {
        await telnyx.phoneNumbers.delete(id);
      } catch (error) {
        if (error instanceof telnyxSdk().APIError && error.status === 404) return;
        throw numberProviderError(telnyxFailures, 'phone number release', error);
      }
    },
  };
}
