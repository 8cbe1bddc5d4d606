export type NumberType = 'local' | 'tollFree' | 'mobile';

export type AvailableNumberQuery = {
  /** ISO 3166 alpha-2, upper case. */
  country: string;
  areaCode?: string;
  /** Digits the number must contain. */
  contains?: string;
  type?: NumberType;
  limit: number;
};

export type AvailableNumber = {
  /** E.164 */
  number: string;
  type: NumberType;
  country: string;
  region: string | null;
  locality: string | null;
  features: string[];
  monthlyCost: { amount: string; currency: string } | null;
};

export type OrderedNumber = {
  /** The provider's id for the number, when it is already known (some orders complete later). */
  providerNumberId: string | null;
  /** Null when the provider does not say (Twilio): the caller derives it from the number. */
  type: NumberType | null;
  /** ISO 3166 alpha-2; null when the provider does not say. */
  country: string | null;
};

/**
 * Buys and manages phone numbers at an SMS provider. Implementations: Telnyx (`telnyx-number.provider.ts`), Twilio
 * (`twilio-number.provider.ts`) and the sandbox (`sandbox-number.provider.ts`). A number someone else took since the search throws a ProviderError with
 * reason `number_unavailable`.
 */
export interface NumberProvider {
  readonly name: 'telnyx' | 'twilio' | 'sandbox';
  searchAvailable(query: AvailableNumberQuery): Promise<AvailableNumber[]>;
  /** Orders `number`; `reference` (our id) is stored at the provider for look-ups from its side. */
  order(number: string, options: { reference: string }): Promise<OrderedNumber>;
  /** Mirrors our label onto the provider's record of the number. */
  update(number: string, providerNumberId: string | null, changes: { friendlyName: string | null }): Promise<void>;
  /** Gives the number back; a number the provider no longer has counts as released. */
  release(number: string, providerNumberId: string | null): Promise<void>;
}

/** Telnyx's names for number types, and ours. */
export const telnyxTypeOf: Record<NumberType, 'local' | 'toll_free' | 'mobile'> = { local: 'local', tollFree: 'toll_free', mobile: 'mobile' };
