import type { Message } from '@tidings/contracts';
import type { Message as MessageRow } from '@tidings/db';
import { toE164 } from '../contacts/contact-fields.ts';
import { findContactIdByAddress } from '../contacts/contact.store.ts';
import type { Deps } from '../deps.ts';
import { findVerifiedDomainOwner } from '../email-domains/email-domain.store.ts';
import { recordEvents, type NewEvent } from '../events.ts';
import { newId } from '../ids.ts';
import { unitOfWork } from '../unit-of-work.ts';
import { findNumberOwner } from '../phone-numbers/phone-number.store.ts';
import { recordSmsOptIn, recordSmsOptOut } from '../suppressions/sms-opt-out.ts';
import { toMessage } from './message.mapper.ts';
import { claimProviderEvent, findInboundMessage, insertReceivedMessage, lockInboundMessage } from './message.store.ts';
import { parseEmail } from './recipients.ts';
import { type CallbackInbound, modeOfProvider, type KeyMode } from '@tidings/providers';
import { countSmsSegments } from '../sms/segments.ts';
import { smsKeywordOf, type SmsKeyword } from './sms-keywords.ts';
import { recordKeywordReply } from '../sms/keyword-replies.ts';

/**
 * A message someone sent to one of an organization's numbers or addresses, as any provider reports it: a provider
 * callback's inbound report (CallbackInbound, which documents its fields), with who received it (`provider`:
 * `telnyx`, `resend`, any other, or `sandbox` for sandbox.inbound) and, for the sandbox, the organization (the
 * caller's key; for a provider it is found from `to`). The sandbox may leave the provider's id out.
 */
export type InboundMessage = Omit<CallbackInbound, 'kind' | 'providerMessageId'> & { provider: string; orgId?: string; providerMessageId?: string | null };

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
 * The organization an inbound message to `to` is for (see findOwner), or null: asked before fetching the content of
 * one whose callback carries none.
 */
export function findInboundOwner(deps: Pick<Deps, 'db'>, channelType: 'email' | 'sms', to: string): Promise<string | null> {
  return findOwner(deps, channelType, normalize(channelType, to));
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
  const recorded = await unitOfWork(deps, async (tx, outbox) => {
    if (inbound.eventId && !(await claimProviderEvent(tx, inbound.provider, inbound.eventId))) return null; // a replay
    if (providerMessageId) {
      // the same callback delivered twice at once: the second waits for the first's commit, then finds its message
      await lockInboundMessage(tx, inbound.provider, providerMessageId);
      const earlier = await findInboundMessage(tx, orgId, inbound.provider, providerMessageId);
      if (earlier) return { message: toMessage(earlier), isRepeat: true };
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
    outbox.add(reply.jobs);
    outbox.add(await recordEvents(tx, [...events, ...reply.events]));
    return { message, isRepeat: false };
  });
  if (!recorded) return { message: null, keyword: null }; // a replay of an event already recorded
  return { message: recorded.message, keyword: recorded.isRepeat ? null : keyword };
}
