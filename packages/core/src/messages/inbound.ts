import type { Message } from '@tidings/contracts';
import type { Message as MessageRow } from '@tidings/db';
import { toE164 } from '../contacts/contact-fields.ts';
import { findContactIdByAddress } from '../contacts/contact.store.ts';
import type { Deps } from '../deps.ts';
import { findVerifiedDomainOwner } from '../email-domains/email-domain.store.ts';
import { recordEvents, type NewEvent } from '../events.ts';
import { newId } from '../ids.ts';
import { dispatchOutbox } from '../outbox.ts';
import { findNumberOwner } from '../phone-numbers/phone-number.store.ts';
import { recordSmsOptIn, recordSmsOptOut } from '../suppressions/sms-opt-out.ts';
import { toMessage } from './message.mapper.ts';
import { claimProviderEvent, findInboundMessage, insertReceivedMessage, lockInboundMessage } from './message.store.ts';
import { parseEmail } from './recipients.ts';
import { modeOfProvider, type KeyMode } from '@tidings/providers';
import { countSmsSegments } from '../sms/segments.ts';
import { smsKeywordOf, type SmsKeyword } from './sms-keywords.ts';
import { recordKeywordReply } from '../sms/keyword-replies.ts';

/** A message someone sent to one of an organization's numbers or addresses, as any provider reports it. */
export type InboundMessage = {
  /** Who received it: `telnyx`, `resend`, any other provider, or `sandbox` (sandbox.inbound). */
  provider: string;
  /** Known for the sandbox (the caller's key); for a provider, found from `to` (the number, or the address's domain). */
  orgId?: string;
  channelType: 'email' | 'sms';
  /** The provider's id of the inbound message: a repeated callback with it records nothing twice. */
  providerMessageId?: string | null;
  /** The provider's id of the callback's event: a replay, even a concurrent one, records nothing. */
  eventId?: string;
  /** The sender (their address or number). */
  from: string;
  /** Ours: the number or address it was sent to. */
  to: string;
  body?: string | null;
  subject?: string | null;
  text?: string | null;
  html?: string | null;
};

const modeOf = (inbound: InboundMessage): KeyMode => modeOfProvider(inbound.provider);

export type InboundResult = { message: Message | null; keyword: SmsKeyword | null };

const normalize = (channelType: 'email' | 'sms', address: string) =>
  channelType === 'email' ? (parseEmail(address.trim(), { allowName: true })?.address ?? address.trim().toLowerCase()) : (toE164(address) ?? address.trim());

/**
 * The organization that owns the number, or that verified the address's domain: a domain only added (pending, or
 * failed) receives nothing, so nobody can claim another's mail by adding its domain first.
 */
async function findOwner({ db }: Pick<Deps, 'db'>, channelType: 'email' | 'sms', to: string): Promise<string | null> {
  if (channelType === 'sms') return (await findNumberOwner(db, to))?.orgId ?? null;
  return findVerifiedDomainOwner(db, to.slice(to.lastIndexOf('@') + 1));
}

/**
 * THE inbound path: every provider's inbound callback (Telnyx `message.received`, Resend `email.received`, and any
 * provider added later) and sandbox.inbound call this, so the sandbox runs exactly what production runs. Records the
 * message (`direction: inbound`, `status: received`, linked to the organization's contact with that phone or email)
 * and `message.received` in one transaction; for SMS, a STOP-family keyword also suppresses the number (`stopped`,
 * `smsSubscribed` false, `contact.unsubscribed`) and a START-family one lifts that, in the same transaction; each
 * keyword (HELP/INFO too) gets one answer from the number written to, written in that transaction as well.
 * A message to a number no organization owns, or a domain none verified, is ignored; one the provider reports again (same
 * `providerMessageId`) is recorded once.
 * @example const { message } = await receiveInboundMessage(deps, { provider: 'telnyx', channelType: 'sms', from: '+14155550123', to: '+15005550006', body: 'STOP' });
 */
export async function receiveInboundMessage(deps: Deps, inbound: InboundMessage): Promise<InboundResult> {
  const from = normalize(inbound.channelType, inbound.from);
  const to = normalize(inbound.channelType, inbound.to);
  const orgId = inbound.orgId ?? (await findOwner(deps, inbound.channelType, to));
  if (!orgId) {
    deps.logger.info({ provider: inbound.provider, channelType: inbound.channelType }, 'inbound message for a number or domain no organization owns');
    return { message: null, keyword: null };
  }
  const providerMessageId = inbound.providerMessageId ?? null;
  const keyword = inbound.channelType === 'sms' ? smsKeywordOf(inbound.body) : null;
  const now = deps.now();
  const recorded = await deps.db.$transaction(async (tx) => {
    if (inbound.eventId && !(await claimProviderEvent(tx, inbound.provider, inbound.eventId))) return null; // a replay
    if (providerMessageId) {
      // the same callback delivered twice at once: the second waits for the first's commit, then finds its message
      await lockInboundMessage(tx, inbound.provider, providerMessageId);
      const earlier = await findInboundMessage(tx, orgId, inbound.provider, providerMessageId);
      if (earlier) return { message: toMessage(earlier), outbox: [], isRepeat: true };
    }
    const contact = await findContactIdByAddress(tx, orgId, inbound.channelType, from);
    const row: MessageRow = await insertReceivedMessage(tx, {
      id: newId('msg'),
      orgId,
      channelType: inbound.channelType,
      direction: 'inbound',
      to,
      from,
      subject: inbound.subject ?? null,
      text: inbound.text ?? null,
      html: inbound.html ?? null,
      body: inbound.channelType === 'sms' ? (inbound.body ?? '') : null,
      segments: inbound.channelType === 'sms' ? countSmsSegments(inbound.body ?? '').segments : null,
      contactId: contact?.id ?? null,
      status: 'received',
      provider: inbound.provider,
      // sandbox.inbound is a test key playing a person; a provider's callback is real traffic
      mode: modeOf(inbound),
      providerMessageId,
      createdAt: now,
      updatedAt: now,
    });
    const message = toMessage(row);
    const events: NewEvent[] = [{ orgId, type: 'message.received', data: message }];
    if (keyword === 'stop') events.push(...(await recordSmsOptOut(tx, orgId, from, modeOf(inbound))));
    if (keyword === 'start') events.push(...(await recordSmsOptIn(tx, orgId, from, modeOf(inbound))));
    const reply = keyword ? await recordKeywordReply(deps, tx, { orgId, mode: modeOf(inbound), keyword, inbound: row }) : { events: [], jobs: [] };
    return { message, outbox: [...reply.jobs, ...(await recordEvents(tx, [...events, ...reply.events]))], isRepeat: false };
  });
  if (!recorded) return { message: null, keyword: null }; // a replay of an event already recorded
  await dispatchOutbox(deps, recorded.outbox);
  return { message: recorded.message, keyword: recorded.isRepeat ? null : keyword };
}
