import { ListQuery, StorableDateTime, storableText, Timestamp } from './common.ts';
import { ChannelType, MESSAGE_LIMITS, SendMessageBody } from './messages.ts';
import { VariableValue } from './templates.ts';
import { z } from './z.ts';

export const BroadcastStatus = z.enum(['draft', 'scheduled', 'sending', 'sent', 'canceled']).openapi({
  description: '`draft -> scheduled -> sending -> sent`, `scheduled|sending -> canceled`. `sent`: every message is created and none is still waiting for a provider.',
});
export type BroadcastStatus = z.infer<typeof BroadcastStatus>;

/** How recipients and their messages stand; from the database at the time of the request. */
export const BroadcastCounts = z
  .object({
    recipients: z.number().int().openapi({ description: 'Contacts of the segment with an address for the channel, fixed when sending started.' }),
    waiting: z.number().int().openapi({ description: "Messages held by quiet hours until the window ends in the recipient's local time." }),
    queued: z.number().int().openapi({ description: 'Messages created and waiting for a provider (queued or sending).' }),
    sent: z.number().int().openapi({ description: 'Accepted by the provider, no outcome yet.' }),
    delivered: z.number().int(),
    failed: z.number().int().openapi({ description: 'Failed or undelivered messages, including contacts whose rendering failed (the message carries the reason).' }),
    bounced: z.number().int(),
    suppressed: z.number().int().openapi({ description: 'Recipients not sent to: unsubscribed from the channel or on the suppression list.' }),
    unsubscribed: z.number().int().openapi({ description: 'Contacts who unsubscribed through this broadcast.' }),
    opened: z.number().int(),
    clicked: z.number().int(),
  })
  .openapi('BroadcastCounts');
export type BroadcastCounts = z.infer<typeof BroadcastCounts>;

const ClockTime = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time of day as HH:MM, such as 21:00');
export const QuietHours = z
  .strictObject({ start: ClockTime, end: ClockTime })
  .refine((window) => window.start !== window.end, { message: 'start and end must differ', path: ['end'] })
  .openapi('QuietHours', {
    description:
      "SMS only: a message due inside this daily window, in the recipient's local time, waits until it ends (`21:00` to `08:00` wraps midnight). Local time: the contact's `timezone` attribute (IANA) when set, else the number's country; where a country spans several zones, outside the window in all of them.",
    example: { start: '21:00', end: '08:00' },
  });
export type QuietHours = z.infer<typeof QuietHours>;

const broadcastExample = {
  id: 'brd_01JD8Z5Q9X4N7W2M3K6P0R1T5V',
  name: 'November newsletter',
  channelType: 'email',
  templateId: 'tpl_01JD8Z5Q9X4N7W2M3K6P0R1T5V',
  templateVersion: 3,
  segmentId: 'seg_01JD8Z5Q9X4N7W2M3K6P0R1T5V',
  topicId: null,
  from: 'Acme <news@example.com>',
  variables: { month: 'November' },
  tags: ['newsletter'],
  quietHours: null,
  sendRate: null,
  mode: 'live',
  status: 'sending',
  scheduledAt: null,
  startedAt: '2026-11-23T08:00:00.000Z',
  completedAt: null,
  canceledAt: null,
  createdAt: '2026-11-23T07:00:00.000Z',
  updatedAt: '2026-11-23T08:00:00.000Z',
} as const;

export const Broadcast = z
  .object({
    id: z.string().openapi({ example: 'brd_01JD8Z5Q9X4N7W2M3K6P0R1T5V' }),
    name: z.string(),
    channelType: ChannelType,
    templateId: z.string(),
    templateVersion: z.number().int().nullable().openapi({
      description:
        'The template version it sends: the one named, else the latest when broadcast.send was called (sent or scheduled). Later template edits do not change it. Null only for a draft that names none.',
    }),
    segmentId: z.string().nullable().openapi({ description: 'Null: every contact of the organization.' }),
    topicId: z.string().nullable().openapi({ description: "Only the topic's members when set; kept after the topic is deleted." }),
    from: z.string().nullable(),
    variables: z.record(z.string(), VariableValue),
    tags: z.array(z.string()),
    quietHours: QuietHours.nullable(),
    sendRate: z.number().int().nullable().openapi({ description: 'Messages per minute at most; null: no limit.' }),
    mode: z.enum(['live', 'test']).openapi({ description: "The mode of the key that created it; its messages carry it. A key sees only its own mode's broadcasts." }),
    status: BroadcastStatus,
    scheduledAt: Timestamp.nullable(),
    startedAt: Timestamp.nullable(),
    completedAt: Timestamp.nullable(),
    canceledAt: Timestamp.nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('Broadcast', { example: broadcastExample });
export type Broadcast = z.infer<typeof Broadcast>;

export const BroadcastWithCounts = Broadcast.extend({
  counts: BroadcastCounts,
  failedReasons: z
    .record(z.string(), z.number().int())
    .openapi({ description: 'How many messages failed for each reason (`RENDER_FAILED`, `PROVIDER_FAILED`, ...); broadcast.retryFailed sends again those that can pass.' }),
  estimatedFinishAt: Timestamp.nullable().openapi({
    description: "While `sending`: when the messages left should be through, at the slower of `sendRate` and the provider's pace (null when neither is known).",
  }),
}).openapi('BroadcastWithCounts', {
  example: {
    ...broadcastExample,
    estimatedFinishAt: null,
    counts: { recipients: 1200, waiting: 0, queued: 300, sent: 100, delivered: 760, failed: 2, bounced: 3, suppressed: 35, unsubscribed: 1, opened: 0, clicked: 0 },
    failedReasons: { PROVIDER_FAILED: 2 },
  },
});
export type BroadcastWithCounts = z.infer<typeof BroadcastWithCounts>;

const messageFields = SendMessageBody.shape;

export const CreateBroadcastBody = z
  .strictObject({
    name: storableText().trim().min(1).max(200),
    channelType: ChannelType,
    templateId: storableText().min(1).max(64),
    templateVersion: messageFields.templateVersion,
    segmentId: storableText().min(1).max(64).optional().openapi({ description: 'Absent: every contact of the organization.' }),
    topicId: storableText().min(1).max(64).optional().openapi({
      description:
        'Only contacts in the topic (of the segment, if one is named): subscribed, or never chose and the topic is `opt_out`. The List-Unsubscribe one-click POST then unsubscribes from this topic only.',
    }),
    from: messageFields.from,
    variables: messageFields.variables.openapi({
      description: 'Shared by every message; the template also sees `contact` (id, email, phone, firstName, lastName, attributes), `unsubscribeUrl` and `preferencesUrl`.',
    }),
    tags: messageFields.tags,
    quietHours: QuietHours.optional(),
    sendRate: z.number().int().min(1).max(1_000_000).optional().openapi({
      description:
        'Messages per minute the fan-out releases at most (warming up a new domain or number): recipient n is due n / sendRate minutes after the start, held across send-worker replicas and restarts. Absent: as fast as the bulk lane allows.',
      example: 600,
    }),
  })
  .refine((body) => body.quietHours === undefined || body.channelType === 'sms', { message: 'quietHours is for channelType sms', path: ['quietHours'] })
  .openapi('CreateBroadcastBody', {
    example: {
      name: 'November newsletter',
      channelType: 'email',
      templateId: 'tpl_01JD8Z5Q9X4N7W2M3K6P0R1T5V',
      segmentId: 'seg_01JD8Z5Q9X4N7W2M3K6P0R1T5V',
      variables: { month: 'November' },
    },
  });
export type CreateBroadcastBody = z.infer<typeof CreateBroadcastBody>;

export const SendBroadcastBody = z
  .strictObject({
    scheduledAt: StorableDateTime.optional().openapi({ description: `Start at this time, up to ${MESSAGE_LIMITS.scheduleDaysAhead} days ahead; now when absent.` }),
  })
  .openapi('SendBroadcastBody', { example: { scheduledAt: '2026-11-24T09:00:00Z' } });
export type SendBroadcastBody = z.infer<typeof SendBroadcastBody>;

export const BroadcastListQuery = ListQuery.safeExtend({ status: BroadcastStatus.optional() });
export type BroadcastListQuery = z.infer<typeof BroadcastListQuery>;

/** broadcast.retryFailed's answer: how many failed messages were queued again. */
export const BroadcastRetry = z
  .object({ count: z.number().int().openapi({ description: 'Failed messages queued again (rendered again first where their rendering had failed).' }) })
  .openapi('BroadcastRetry', { example: { count: 335 } });
export type BroadcastRetry = z.infer<typeof BroadcastRetry>;

export const BroadcastLink = z
  .object({
    url: z.string().openapi({ description: 'The link as written in the email.', example: 'https://example.com/sale' }),
    clicks: z.number().int().openapi({ description: 'Clicks recorded (a repeat on the same link of the same message within an hour counts once).' }),
    uniqueClicks: z.number().int().openapi({ description: 'Messages (so recipients) with at least one click on it.' }),
  })
  .openapi('BroadcastLink');
export type BroadcastLink = z.infer<typeof BroadcastLink>;

export const BroadcastLinks = z.array(BroadcastLink).openapi('BroadcastLinks', { example: [{ url: 'https://example.com/sale', clicks: 412, uniqueClicks: 377 }] });
export type BroadcastLinks = z.infer<typeof BroadcastLinks>;
