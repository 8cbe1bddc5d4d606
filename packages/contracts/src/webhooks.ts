import { ListQuery, StorableDateTime, storableText, Timestamp } from './common.ts';
import { z } from './z.ts';

/** Every event type a webhook can subscribe to (API.md). */
export const EventType = z
  .enum([
    'message.queued',
    'message.sent',
    'message.delivered',
    'message.failed',
    'message.bounced',
    'message.undelivered',
    'message.canceled',
    'message.received',
    'message.opened',
    'message.clicked',
    'message.complained',
    'message.delayed',
    'verification.approved',
    'verification.expired',
    'verification.failed',
    'contact.created',
    'contact.updated',
    'contact.deleted',
    'contact.unsubscribed',
    'broadcast.sending',
    'broadcast.sent',
    'broadcast.canceled',
    'emailDomain.verified',
    'emailDomain.failed',
    'phoneNumber.purchased',
    'phoneNumber.released',
    'webhook.test',
  ])
  .openapi('EventType');
export type EventType = z.infer<typeof EventType>;

const WebhookUrl = storableText().trim().max(2048).openapi({
  description: 'Where events are POSTed. https in production; must resolve to public addresses only.',
  example: 'https://example.com/webhooks/tidings',
});
const Events = z
  .array(EventType)
  .min(1)
  .max(EventType.options.length)
  .transform((types) => [...new Set(types)])
  .openapi({ description: 'The event types to receive.', example: ['message.delivered', 'message.bounced'] });

const webhookExample = {
  id: 'whk_01JD8Z5Q9X4N7W2M3K6P0R1T5V',
  url: 'https://example.com/webhooks/tidings',
  mode: 'live',
  events: ['message.delivered', 'message.bounced'],
  description: 'Delivery receipts for the CRM',
  enabled: true,
  disabledReason: null,
  disabledAt: null,
  failingSince: null,
  previousSecretExpiresAt: null,
  createdAt: '2026-11-23T08:00:00.000Z',
  updatedAt: '2026-11-23T08:00:00.000Z',
} as const;

const webhookDeliveryExample = {
  id: 'dlv_3f0c2b9e8d7a4c1b9e0f6a5d4c3b2a10',
  webhookId: 'whk_01JD8Z5Q9X4N7W2M3K6P0R1T5V',
  eventId: 'evt_01JD8Z5Q9X4N7W2M3K6P0R1T5V',
  eventType: 'message.delivered',
  status: 'succeeded',
  attempts: 1,
  nextAttemptAt: null,
  lastAttempt: { statusCode: 200, durationMs: 84, error: null, at: '2026-11-23T08:05:00.120Z' },
  createdAt: '2026-11-23T08:05:00.000Z',
  updatedAt: '2026-11-23T08:05:00.204Z',
} as const;

export const Webhook = z
  .object({
    id: z.string().openapi({ example: 'whk_01JD8Z5Q9X4N7W2M3K6P0R1T5V' }),
    url: z.string(),
    mode: z.enum(['live', 'test']).openapi({
      description:
        "The mode of the key that made it (the dashboard's: live, or test in an organization made for testing). It receives only that mode's message and broadcast events; a key of the other mode cannot see or change it (404).",
    }),
    events: z.array(EventType),
    description: z.string().nullable(),
    enabled: z.boolean(),
    disabledReason: z.enum(['manual', 'gone', 'failing']).nullable().openapi({
      description: '`manual`: by webhook.delete or an update with enabled false; `gone`: the endpoint answered 410; `failing`: it failed for 5 days straight.',
    }),
    disabledAt: Timestamp.nullable().openapi({ description: 'When it was disabled; null while enabled.' }),
    failingSince: Timestamp.nullable().openapi({ description: 'Start of the current run of failed deliveries; null while healthy.' }),
    previousSecretExpiresAt: Timestamp.nullable().openapi({
      description: 'After a rotation, until when the previous secret still signs (a second `v1,` signature); null when it no longer does.',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('Webhook', { example: webhookExample });
export type Webhook = z.infer<typeof Webhook>;

export const WebhookWithSecret = Webhook.extend({
  secret: z.string().openapi({
    description: 'The signing secret (Standard Webhooks). Shown only in this response; store it now.',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  }),
}).openapi('WebhookWithSecret', { example: { ...webhookExample, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' } });
export type WebhookWithSecret = z.infer<typeof WebhookWithSecret>;

export const WebhookDeliveryStatus = z.enum(['pending', 'succeeded', 'failed']);
export type WebhookDeliveryStatus = z.infer<typeof WebhookDeliveryStatus>;

export const WebhookDelivery = z
  .object({
    id: z.string().openapi({ example: 'dlv_3f0c2b9e8d7a4c1b9e0f6a5d4c3b2a10' }),
    webhookId: z.string(),
    eventId: z.string().openapi({ description: 'Also the `webhook-id` header of every attempt.', example: 'evt_01JD8Z5Q9X4N7W2M3K6P0R1T5V' }),
    eventType: EventType,
    status: WebhookDeliveryStatus,
    attempts: z.number().int(),
    nextAttemptAt: Timestamp.nullable().openapi({ description: 'When the next try is due, while pending.' }),
    lastAttempt: z
      .object({
        statusCode: z.number().int().nullable(),
        durationMs: z.number().int(),
        error: z.string().nullable(),
        at: Timestamp,
      })
      .nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('WebhookDelivery', { example: webhookDeliveryExample });
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const WebhookDetail = Webhook.extend({
  recentEvents: z.array(WebhookDelivery).openapi({ description: 'The last 20 deliveries, newest first.' }),
}).openapi('WebhookDetail', { example: { ...webhookExample, recentEvents: [webhookDeliveryExample] } });
export type WebhookDetail = z.infer<typeof WebhookDetail>;

export const CreateWebhookBody = z
  .strictObject({
    url: WebhookUrl,
    events: Events,
    description: storableText().trim().max(500).optional().openapi({ example: 'Delivery receipts for the CRM' }),
  })
  .openapi('CreateWebhookBody', {
    example: { url: 'https://example.com/webhooks/tidings', events: ['message.delivered', 'message.bounced'], description: 'Delivery receipts for the CRM' },
  });
export type CreateWebhookBody = z.infer<typeof CreateWebhookBody>;

export const UpdateWebhookBody = z
  .strictObject({
    url: WebhookUrl.optional(),
    events: Events.optional(),
    description: storableText().trim().max(500).nullable().optional(),
    enabled: z.boolean().optional().openapi({ description: '`true` re-enables a disabled endpoint.' }),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'give at least one of url, events, description, enabled' })
  .openapi('UpdateWebhookBody', { example: { events: ['message.delivered', 'message.bounced', 'message.failed'], enabled: true } });
export type UpdateWebhookBody = z.infer<typeof UpdateWebhookBody>;

export const ListWebhookEventsQuery = ListQuery.safeExtend({
  status: WebhookDeliveryStatus.optional().openapi({ description: 'Only deliveries in this status.' }),
});
export type ListWebhookEventsQuery = z.infer<typeof ListWebhookEventsQuery>;

const deliveryIdSchema = z
  .string()
  .min(1)
  .max(64)
  .refine((v) => !v.includes('\u0000'), 'must not contain the NUL character')
  .openapi({ param: { name: 'deliveryId', in: 'path' }, example: 'dlv_3f0c2b9e8d7a4c1b9e0f6a5d4c3b2a10' });

/** The path of one delivery: `/webhooks/{id}/events/{deliveryId}`. */
export const WebhookDeliveryParams = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .refine((v) => !v.includes('\u0000'), 'must not contain the NUL character')
    .openapi({ param: { name: 'id', in: 'path' }, example: 'whk_01JD8Z5Q9X4N7W2M3K6P0R1T5V' }),
  deliveryId: deliveryIdSchema,
});

export const WebhookAttempt = z
  .object({
    number: z.number().int().openapi({ description: '1 for the first try.' }),
    statusCode: z.number().int().nullable().openapi({ description: 'What the endpoint answered; null when no answer came (refused, timeout, connection error).' }),
    durationMs: z.number().int(),
    responseBody: z.string().nullable().openapi({ description: 'The first 64 KiB of the answer.' }),
    error: z.string().nullable(),
    at: Timestamp,
  })
  .openapi('WebhookAttempt');
export type WebhookAttempt = z.infer<typeof WebhookAttempt>;

export const WebhookDeliveryDetail = WebhookDelivery.extend({
  payload: z
    .object({ id: z.string(), type: EventType, createdAt: Timestamp, data: z.record(z.string(), z.unknown()) })
    .nullable()
    .openapi({ description: 'The body POSTed: the event, whose `id` is also the `webhook-id` header.' }),
  attemptLog: z.array(WebhookAttempt).openapi({ description: 'Every attempt, oldest first.' }),
}).openapi('WebhookDeliveryDetail', {
  example: {
    ...webhookDeliveryExample,
    payload: { id: 'evt_01JD8Z5Q9X4N7W2M3K6P0R1T5V', type: 'message.delivered', createdAt: '2026-11-23T08:05:00.000Z', data: { id: 'msg_01JD8Z5Q9X4N7W2M3K6P0R1T5V' } },
    attemptLog: [{ number: 1, statusCode: 200, durationMs: 84, responseBody: 'ok', error: null, at: '2026-11-23T08:05:00.120Z' }],
  },
});
export type WebhookDeliveryDetail = z.infer<typeof WebhookDeliveryDetail>;

export const ReplayWebhookBody = z
  .strictObject({
    since: StorableDateTime.openapi({ description: 'Deliveries created at or after this time.' }),
    until: StorableDateTime.optional().openapi({ description: 'Deliveries created before this time; now when absent.' }),
    status: z.enum(['failed']).optional().openapi({ description: '`failed`: only deliveries that gave up; absent: every delivery in the range.' }),
  })
  .openapi('ReplayWebhookBody', { example: { since: '2026-11-24T00:00:00Z', until: '2026-11-24T06:00:00Z', status: 'failed' } });
export type ReplayWebhookBody = z.infer<typeof ReplayWebhookBody>;

export const ReplayWebhookResponse = z
  .object({ count: z.number().int().openapi({ description: 'How many deliveries will be sent again.' }) })
  .openapi('ReplayWebhookResponse', { example: { count: 42 } });
export type ReplayWebhookResponse = z.infer<typeof ReplayWebhookResponse>;
