import type { Config } from '@tidings/config';
import { RESEND_BATCH_SIZE } from '@tidings/providers';

/**
 * Messages per second a broadcast's bulk lane reaches at its channel's first provider's pace: Resend's requests times
 * its batch size, SES's or SMTP's configured rate; null when the pace is not known here (SMS numbers, the sandbox).
 */
function bulkPacePerSecond(config: Pick<Config, 'pace' | 'providerLists'>, channelType: 'email' | 'sms'): number | null {
  if (channelType !== 'email') return null;
  const first = config.providerLists.email[0];
  if (first === 'resend') return config.pace.resendPerSecond * RESEND_BATCH_SIZE;
  if (first === 'ses') return config.pace.sesPerSecond ?? null;
  if (first === 'smtp') return config.pace.smtpPerSecond ?? null;
  return null;
}

/**
 * When a sending broadcast's `remaining` messages should be through, at the slower of its own `sendRate` (a minute)
 * and its provider's pace; null when it is not sending or neither is known.
 * @example estimatedFinishAt(config, { status: 'sending', channelType: 'email', sendRate: null }, 2000, now) // now + 4 s at Resend's 5/s
 */
export function estimatedFinishAt(
  config: Pick<Config, 'pace' | 'providerLists'>,
  broadcast: { status: string; channelType: 'email' | 'sms'; sendRate: number | null },
  remaining: number,
  now: Date,
): string | null {
  if (broadcast.status !== 'sending') return null;
  const rates = [broadcast.sendRate ? broadcast.sendRate / 60 : null, bulkPacePerSecond(config, broadcast.channelType)].filter((r): r is number => r !== null && r > 0);
  if (rates.length === 0) return null;
  return new Date(now.getTime() + (Math.max(0, remaining) / Math.min(...rates)) * 1000).toISOString();
}
