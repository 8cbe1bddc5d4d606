import type { Message, SandboxInboundBody } from '@tidings/contracts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { receiveInboundMessage } from './inbound.ts';
import { parseE164, parseEmail } from './recipients.ts';
import type { KeyMode } from '@tidings/providers';

/**
 * sandbox.inbound: plays a person writing to the organization, for `sk_test_` keys only (a live key is 403). It is
 * handed to `receiveInboundMessage` exactly as a provider's inbound callback is, so keywords (STOP, START, HELP) act
 * as they would in production. Returns the inbound message.
 * @example const message = await receiveSandboxInbound(deps, orgId, 'test', { channelType: 'sms', from: '+14155550123', to: '+15005550006', body: 'STOP' });
 */
export async function receiveSandboxInbound(deps: Deps, orgId: string, mode: KeyMode, input: SandboxInboundBody): Promise<Message> {
  if (mode !== 'test') throw new AppError('FORBIDDEN', 'sandbox.inbound needs an sk_test_ key: with a live key, inbound messages come from the providers');
  const valid = input.channelType === 'email' ? (v: string) => parseEmail(v, { allowName: true }) !== null : (v: string) => parseE164(v) !== null;
  const what = input.channelType === 'email' ? 'a valid email address for channelType email' : 'a valid E.164 phone number for channelType sms';
  for (const field of ['from', 'to'] as const) if (!valid(input[field])) throw new AppError('BAD_REQUEST', `${field}: must be ${what}`);
  if (input.channelType === 'sms' && input.body === undefined) throw new AppError('BAD_REQUEST', 'body: required for channelType sms');
  if (input.channelType === 'sms' && (input.subject ?? input.text ?? input.html) !== undefined)
    throw new AppError('BAD_REQUEST', 'subject, text and html are for channelType email; use body');
  if (input.channelType === 'email' && input.body !== undefined) throw new AppError('BAD_REQUEST', 'body: is for channelType sms; use subject, text and html');
  if (input.channelType === 'email' && input.text === undefined && input.html === undefined) throw new AppError('BAD_REQUEST', 'text: give text or html for channelType email');
  const { message } = await receiveInboundMessage(deps, { provider: 'sandbox', orgId, ...input });
  return message!;
}
