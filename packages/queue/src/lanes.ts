/**
 * Work is of two kinds. Transactional: what one person waits for (message.send, sendBatch, the webhook deliveries of
 * events, a retried delivery). Bulk: what goes to many (a broadcast's messages, a webhook replay). Each kind has
 * queues of its own and workers of its own, so bulk work never waits in front of transactional work.
 */
export type Lane = 'transactional' | 'bulk';

export type SendQueue = 'email' | 'sms' | 'email-bulk' | 'sms-bulk';
export type WebhookQueue = 'webhooks' | 'webhooks-bulk';

/**
 * The queue of a message's send job: its channel's, in the bulk lane for a broadcast's message. Decided by the
 * message row alone (it never changes lane), so every path that adds its job (the request, the fan-out, the outbox
 * relay, the stranded sweep) adds it to the same queue, and jobId = message id still dedupes.
 * @example sendQueueOf({ channelType: 'email', broadcastId: 'brd_1' }) // 'email-bulk'
 */
export function sendQueueOf(message: { channelType: 'email' | 'sms'; broadcastId?: string | null }): SendQueue {
  return messageLaneOf(message) === 'bulk' ? `${message.channelType}-bulk` : message.channelType;
}

/** A message's lane: a broadcast's messages are bulk, every other one transactional. */
export function messageLaneOf(message: { broadcastId?: string | null }): Lane {
  return message.broadcastId ? 'bulk' : 'transactional';
}

/** The lane whose work a queue holds (`email-bulk`, `webhooks-bulk`: bulk). */
export function laneOfQueue(queue: SendQueue | WebhookQueue): Lane {
  return queue.endsWith('-bulk') ? 'bulk' : 'transactional';
}

/** The queue of a webhook delivery job in `lane`. */
export function webhookQueueOf(lane: Lane): WebhookQueue {
  return lane === 'bulk' ? 'webhooks-bulk' : 'webhooks';
}
