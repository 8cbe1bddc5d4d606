import type { Message as MessageRow } from '@tidings/db';
import type { ProviderName } from '@tidings/providers';
import { defaultMessagesPerSecond } from '@tidings/contracts';
import type { Deps } from '../deps.ts';
import { findNumberPace } from '../phone-numbers/phone-number.store.ts';
import type { PaceAccount } from './pace-limiter.ts';

/**
 * The limiter a message's call to `provider` is paced by, or null when that provider is not paced (the sandbox, an
 * SMTP relay without SMTP_RATE_PER_SECOND, SES whose rate is not known). Resend: RESEND_RATE_PER_SECOND requests.
 * SES: SES_MAX_SEND_RATE, else the account's own MaxSendRate. An SMS: its sending number's `messagesPerSecond`.
 * @example const account = await paceAccountFor(deps, 'resend', message); // { name: 'resend', provider: 'resend', ratePerSecond: 2 }
 */
export async function paceAccountFor(
  deps: Pick<Deps, 'config' | 'providers' | 'db'>,
  provider: ProviderName,
  message: Pick<MessageRow, 'channelType' | 'from'>,
): Promise<PaceAccount | null> {
  if (provider === 'sandbox') return null;
  if (message.channelType === 'sms') {
    // each sending number has a pace of its own (its carrier registration's), whichever provider carries it
    const number = await findNumberPace(deps.db, message.from);
    const ratePerSecond = number ? (number.messagesPerSecond ?? defaultMessagesPerSecond(number.type)) : null;
    return ratePerSecond ? { name: `${provider}:${message.from}`, provider, ratePerSecond, reason: 'sender_rate_limit' } : null;
  }
  const { pace } = deps.config;
  const rate =
    provider === 'resend'
      ? pace.resendPerSecond
      : provider === 'ses'
        ? (pace.sesPerSecond ?? (await deps.providers.email('ses')?.maxSendRate?.()))
        : provider === 'smtp'
          ? pace.smtpPerSecond
          : undefined;
  return rate ? { name: provider, provider, ratePerSecond: rate, reason: 'provider_rate_limit' } : null;
}
