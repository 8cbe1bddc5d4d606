import { ListQuery, storableText, Timestamp } from './common.ts';
import { ChannelType } from './messages.ts';
import { z } from './z.ts';

export const SuppressionReason = z.enum(['bounced', 'complained', 'unsubscribed', 'stopped', 'manual']).openapi({
  description:
    '`bounced` and `complained`: the provider said so; `unsubscribed`: the contact was unsubscribed; `stopped`: the recipient texted STOP (or the SMS provider refused the send because they had); `manual`: added with suppression.create.',
});
export type SuppressionReason = z.infer<typeof SuppressionReason>;

export const Suppression = z
  .object({
    id: z.string().openapi({ example: 'sup_3f0c2b9e8d7a4c1b9e0f6a5d4c3b2a10' }),
    channelType: ChannelType,
    address: z.string().openapi({ description: 'A lower-cased email address or an E.164 number, as sends compare it.' }),
    mode: z.enum(['live', 'test']).openapi({
      description:
        "The list it is on: `test` (made by a test key, a sandbox bounce, complaint or STOP) stops only test sends; `live` stops every send. A key sees and lifts only its own mode's.",
    }),
    reason: SuppressionReason,
    createdAt: Timestamp,
  })
  .openapi('Suppression', {
    example: { id: 'sup_3f0c2b9e8d7a4c1b9e0f6a5d4c3b2a10', channelType: 'sms', address: '+14155550123', mode: 'live', reason: 'stopped', createdAt: '2026-11-23T08:00:00.000Z' },
  });
export type Suppression = z.infer<typeof Suppression>;

export const CreateSuppressionBody = z
  .strictObject({
    channelType: ChannelType,
    address: storableText().trim().min(1).max(320).openapi({ description: 'An email address (email) or an E.164 number (sms).' }),
    reason: z.enum(['manual']).optional().openapi({ description: 'Always `manual`; the other reasons are written by what they name.' }),
  })
  .openapi('CreateSuppressionBody', { example: { channelType: 'email', address: 'ada@example.com' } });
export type CreateSuppressionBody = z.infer<typeof CreateSuppressionBody>;

export const SuppressionListQuery = ListQuery.safeExtend({
  channelType: ChannelType.optional(),
  reason: SuppressionReason.optional(),
  address: storableText().trim().min(1).max(320).optional().openapi({ description: 'Exactly this address (case-insensitive for email).' }),
});
export type SuppressionListQuery = z.infer<typeof SuppressionListQuery>;
