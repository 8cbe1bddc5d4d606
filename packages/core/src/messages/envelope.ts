import { MESSAGE_LIMITS, type SendMessageBody } from '@tidings/contracts';
import { AppError } from '../errors.ts';
import { parseEmail } from './recipients.ts';

/** The email-only recipients and headers of a send, as stored on the message. */
export type Envelope = { cc: string[]; bcc: string[]; replyTo: string[]; headers: Record<string, string>; mediaUrls: string[] };

const EMAIL_ONLY = ['cc', 'bcc', 'replyTo', 'headers', 'attachments'] as const;

/** Lower-cased addresses of `list`, or BAD_REQUEST naming `field.index`. */
function addresses(field: string, list: string[], allowName: boolean): string[] {
  return list.map((raw, index) => {
    const parsed = parseEmail(raw, { allowName });
    if (!parsed) throw new AppError('BAD_REQUEST', `${field}.${index}: must be a valid email address`);
    return allowName && parsed.name ? raw.trim() : parsed.address;
  });
}

/**
 * Checks and normalizes what goes around the content: email's `cc` (display names kept), `bcc` (with the `toCount`
 * To recipients at most 50) and `replyTo` (display names kept), `headers` (names checked by the schema), SMS's `mediaUrls`; a field of the
 * other channel is BAD_REQUEST naming it.
 * @example resolveEnvelope({ channelType: 'email', cc: ['Bo@Example.com'] }) // { cc: ['bo@example.com'], bcc: [], ... }
 */
export function resolveEnvelope(item: SendMessageBody, toCount = 1): Envelope {
  if (item.channelType === 'sms') {
    const wrong = EMAIL_ONLY.find((field) => item[field] !== undefined);
    if (wrong) throw new AppError('BAD_REQUEST', `${wrong}: not allowed for channelType sms`);
    return { cc: [], bcc: [], replyTo: [], headers: {}, mediaUrls: item.mediaUrls ?? [] };
  }
  if (item.mediaUrls !== undefined) throw new AppError('BAD_REQUEST', 'mediaUrls: not allowed for channelType email');
  const cc = addresses('cc', item.cc ?? [], true);
  const bcc = addresses('bcc', item.bcc ?? [], false);
  const count = toCount + cc.length + bcc.length;
  if (count > MESSAGE_LIMITS.recipients) {
    throw new AppError('BAD_REQUEST', `${toCount > 1 ? 'to' : 'cc'}: to, cc and bcc together must be at most ${MESSAGE_LIMITS.recipients} recipients (got ${count})`);
  }
  const replyTo = item.replyTo === undefined ? [] : addresses('replyTo', Array.isArray(item.replyTo) ? item.replyTo : [item.replyTo], true);
  return { cc, bcc, replyTo, headers: item.headers ?? {}, mediaUrls: [] };
}
