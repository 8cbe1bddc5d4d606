import type { KeywordReplies } from '@tidings/contracts';
import type { Message as MessageRow, Prisma, SmsKeyword } from '@tidings/db';
import type { KeyMode } from '@tidings/providers';
import type { Deps } from '../deps.ts';
import type { NewEvent } from '../events.ts';
import { newId } from '../ids.ts';
import { toMessage } from '../messages/message.mapper.ts';
import { insertKeywordReply } from '../messages/message.store.ts';
import type { OutboxItem } from '../outbox.ts';
import { writeOutbox } from '../outbox.store.ts';
import { findOrganizationNameOrThrow } from '../organizations/organization.store.ts';
import { findNumberReplies } from '../phone-numbers/phone-number.store.ts';
import { countSmsSegments } from './segments.ts';

/** The answers carriers expect when neither the number nor the install sets one: they name who is writing. */
const DEFAULT_REPLIES: Record<SmsKeyword, (organization: string) => string> = {
  stop: (organization) => `${organization}: you are unsubscribed and will receive no more messages. Reply START to subscribe again.`,
  start: (organization) => `${organization}: you are subscribed again. Reply HELP for help, STOP to unsubscribe.`,
  help: (organization) => `${organization}: reply STOP to unsubscribe, START to subscribe again. Msg & data rates may apply.`,
};

/**
 * The text answering `keyword`: the number's own, else the install's (SMS_STOP_REPLY, SMS_START_REPLY,
 * SMS_HELP_TEXT), else the default naming the organization.
 * @example keywordReplyText('help', {}, {}, 'Acme') // 'Acme: reply STOP to unsubscribe, ...'
 */
export function keywordReplyText(keyword: SmsKeyword, ofNumber: KeywordReplies, ofInstall: KeywordReplies, organization: string): string {
  return ofNumber[keyword] ?? ofInstall[keyword] ?? DEFAULT_REPLIES[keyword](organization);
}

/**
 * Writes the answer to an inbound keyword, in the inbound message's transaction: an outbound SMS of the organization
 * from the number written to, `queued` with its job in the outbox, so exactly one answer exists per inbound message
 * (a repeated callback records neither again). `keywordReply` marks it: STOP's and HELP's answers reach a number that
 * is now suppressed, the only messages that do. Returns its `message.queued` event and its job, for after commit.
 * @example const reply = await recordKeywordReply(deps, tx, { orgId, mode: 'live', keyword: 'stop', inbound: row });
 */
export async function recordKeywordReply(
  { config, providers }: Pick<Deps, 'config' | 'providers'>,
  tx: Prisma.TransactionClient,
  { orgId, mode, keyword, inbound }: { orgId: string; mode: KeyMode; keyword: SmsKeyword; inbound: MessageRow },
): Promise<{ events: NewEvent[]; jobs: OutboxItem[] }> {
  const [number, organization] = await Promise.all([findNumberReplies(tx, orgId, inbound.to), findOrganizationNameOrThrow(tx, orgId)]);
  const body = keywordReplyText(keyword, (number?.replies ?? {}) as KeywordReplies, config.smsReplies, organization.name);
  const now = inbound.createdAt;
  const row = await insertKeywordReply(tx, {
    id: newId('msg'),
    orgId,
    to: inbound.from,
    from: inbound.to,
    body,
    segments: countSmsSegments(body).segments,
    contactId: inbound.contactId,
    provider: providers.plannedFor(mode, 'sms'),
    mode,
    keywordReply: keyword,
    inReplyTo: inbound.id,
    at: now,
  });
  const jobs: OutboxItem[] = [{ queue: 'sms', jobId: row.id, orgId }];
  await writeOutbox(tx, jobs);
  return { events: [{ orgId, type: 'message.queued', data: toMessage(row) }], jobs };
}
