import type { Message as MessageRow, Prisma, SmsKeyword } from '@tidings/db';
import type { KeyMode } from '@tidings/providers';

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
