import type { Twilio } from 'twilio';
import type { AvailableNumber, NumberProvider, NumberType } from './number-provider.ts';
import { callNumberProvider, numberProviderError, type NumberProviderFailures } from './number-provider-error.ts';
import { REQUEST_TIMEOUT_MS } from './request-timeout.ts';
import { createTwilioClient } from './twilio.provider.ts';

/** What we read of a Twilio search result (its Local, TollFree and Mobile resources share these). */
type FoundNumber = { phoneNumber: string; isoCountry: string; region: string; locality: string; capabilities: object | null };

/** Twilio's failures: the status and Twilio's error code on the thrown error (no numeric status: no answer). */
const twilioFailures: NumberProviderFailures = {
  provider: 'twilio',
  label: 'Twilio',
  failureOf: (error) => {
    const { status, code } = error as { status?: unknown; code?: number };
    return { status: typeof status === 'number' ? status : undefined, code };
  },
};

const call = <T>(operation: string, run: () => Promise<T>, options?: { unavailableOn4xx?: boolean }) => callNumberProvider(twilioFailures, operation, run, options);

export type TwilioNumberOptions = {
  accountSid: string;
  authToken: string;
  /** Another API origin than api.twilio.com (a loopback fake in tests). */
  baseUrl?: string;
  /** Where Twilio posts the SMS a bought number receives (our /v1/provider-events/twilio), so it works at once. */
  smsUrl: string;
};

/**
 * Phone numbers through Twilio's AvailablePhoneNumbers and IncomingPhoneNumbers APIs with the official SDK. Twilio's
 * number resource names neither type nor country: the order returns them as unknown and the caller derives them from
 * the number. Our id goes into the number's FriendlyName until a label replaces it, as Telnyx's customer reference.
 * @example const numbers = createTwilioNumberProvider({ accountSid, authToken, smsUrl: twilioCallbackUrl(config) });
 * const found = await numbers.searchAvailable({ country: 'US', areaCode: '415', limit: 5 });
 */
export function createTwilioNumberProvider(options: TwilioNumberOptions): NumberProvider {
  let client: Promise<Twilio> | null = null;
  const twilio = () => (client ??= createTwilioClient({ ...options, timeoutMs: REQUEST_TIMEOUT_MS }));

  async function findNumberSid(number: string): Promise<string | null> {
    const found = await call('phone number look-up', async () => (await twilio()).incomingPhoneNumbers.list({ phoneNumber: number, limit: 20 }));
    return found.find((n) => n.phoneNumber === number)?.sid ?? null;
  }

  return {
    name: 'twilio',
    async searchAvailable(query) {
      const type: NumberType = query.type ?? 'local';
      const params = { areaCode: query.areaCode ? Number(query.areaCode) : undefined, contains: query.contains, smsEnabled: true, limit: query.limit };
      const found: FoundNumber[] = await call('number search', async () => {
        const country = (await twilio()).availablePhoneNumbers(query.country);
        if (type === 'tollFree') return country.tollFree.list(params);
        return type === 'mobile' ? country.mobile.list(params) : country.local.list(params);
      });
      return found.map(
        (n): AvailableNumber => ({
          number: n.phoneNumber,
          type,
          country: n.isoCountry || query.country,
          region: n.region || null,
          locality: n.locality || null,
          // Twilio spells them `SMS`, `MMS`, `voice`
          features: Object.entries(n.capabilities ?? {}).flatMap(([name, isEnabled]) => (isEnabled ? [name.toLowerCase()] : [])),
          monthlyCost: null, // Twilio's search carries no price (that is its Pricing API)
        }),
      );
    },
    async order(number, { reference }) {
      // No retry of the purchase itself (the client never retries): a second POST could buy twice. A 4xx means gone.
      const bought = await call(
        'number purchase',
        async () => (await twilio()).incomingPhoneNumbers.create({ phoneNumber: number, friendlyName: reference, smsUrl: options.smsUrl, smsMethod: 'POST' }),
        { unavailableOn4xx: true },
      );
      return { providerNumberId: bought.sid, type: null, country: null };
    },
    async update(number, providerNumberId, changes) {
      const sid = providerNumberId ?? (await findNumberSid(number));
      if (!sid) return;
      await call('phone number update', async () => (await twilio()).incomingPhoneNumbers(sid).update({ friendlyName: changes.friendlyName ?? number }));
    },
    async release(number, providerNumberId) {
      const sid = providerNumberId ?? (await findNumberSid(number));
      if (!sid) return; // Twilio no longer has it: nothing to give back
      try {
        await (await twilio()).incomingPhoneNumbers(sid).remove();
      } catch (error) {
        if ((error as { status?: unknown }).status === 404) return;
        throw numberProviderError(twilioFailures, 'phone number release', error);
      }
    },
  };
}
