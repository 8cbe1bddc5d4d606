import type { Lane } from '@tidings/queue';
import type { PostResult } from '@tidings/webhooks';

/** What the webhook-worker should do with a delivery job. */
export type DeliveryWork =
  | { kind: 'done'; reason: string }
  | { kind: 'notYet'; at: Date }
  | {
      kind: 'deliver';
      deliveryId: string;
      orgId: string;
      webhookId: string;
      url: string;
      /** The `webhook-id` header: the event id, the same on every retry, so receivers dedupe by it. */
      messageId: string;
      body: string;
      /** Every secret that signs now: the current one, and the previous one during a rotation's overlap. */
      secrets: string[];
      attempts: number;
      failingSince: Date | null;
      /** The delivery's partition key: its outcome is written to that month's partition only. */
      createdAt: Date;
      /** The lane of its job's queue, whose shared statement records its success. */
      lane: Lane;
    };

export type Attempt = { work: Extract<DeliveryWork, { kind: 'deliver' }>; result: PostResult; at: Date };
