import type { Message as MessageRow } from '@tidings/db';
import type { Deps } from '../deps.ts';

/** How a message ended: its final status, with `suppressed` told apart from other failures. */
export type MessageOutcome = 'delivered' | 'bounced' | 'undelivered' | 'failed' | 'suppressed';

/**
 * Records that a message reached its final outcome, once, by the process that moved it there: one log line and
 * `tidings_messages_total{channel,status}` (what a delivery-rate alert divides). Call only after the status change
 * committed, so a change that lost a race counts nothing.
 * @example const moved = await changeMessageStatus(deps.db, id, change); if (moved) recordMessageOutcome(deps, moved.row, 'failed');
 */
export function recordMessageOutcome(
  { logger, metrics }: Pick<Deps, 'logger' | 'metrics'>,
  row: Pick<MessageRow, 'id' | 'orgId' | 'channelType' | 'provider' | 'errorCode' | 'attempts'>,
  outcome: MessageOutcome,
): void {
  metrics.messages.inc({ channel: row.channelType, status: outcome });
  const line = { messageId: row.id, orgId: row.orgId, channel: row.channelType, provider: row.provider, outcome, errorCode: row.errorCode ?? undefined, attempts: row.attempts };
  if (outcome === 'delivered') logger.info(line, 'message delivered');
  else logger.warn(line, `message ${outcome}`);
}
