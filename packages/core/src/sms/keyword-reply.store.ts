import type { Message as MessageRow, Prisma, SmsKeyword } from '@tidings/db';
import type { KeyMode } from '@tidings/providers';

/** The keyword replies the organization's number sets, or null when the number is not (or no longer) the organization's. */
export async function findNumberReplies(tx: Prisma.TransactionClient, orgId: string, number: string): Promise<{ replies: Prisma.JsonValue } | null> {
  return tx.phoneNumber.findFirst({ where: { orgId, number }, select: { replies: true } });
}

/** The answer to an inbound keyword: an outbound SMS, `queued` with its first status event, marked `keywordReply`. */
export async function insertKeywordReply(
  tx: Prisma.TransactionClient,
  reply: {
    id: string;
    orgId: string;
    to: string;
    from: string;
    body: string;
    segments: number;
    contactId: string | null;
    provider: string;
    mode: KeyMode;
    keywordReply: SmsKeyword;
    inReplyTo: string;
    at: Date;
  },
): Promise<MessageRow> {
  return tx.message.create({
    data: {
      id: reply.id,
      orgId: reply.orgId,
      channelType: 'sms',
      direction: 'outbound',
      to: reply.to,
      from: reply.from,
      body: reply.body,
      segments: reply.segments,
      contactId: reply.contactId,
      status: 'queued',
      provider: reply.provider,
      mode: reply.mode,
      keywordReply: reply.keywordReply,
      metadata: { inReplyTo: reply.inReplyTo },
      createdAt: reply.at,
      updatedAt: reply.at,
      events: { create: { status: 'queued', createdAt: reply.at } },
    },
  });
}
