import type { RequestOptions } from '../client.ts';
import type { OperationQuery, Schemas } from '../operation-types.ts';
import type { PageIterator } from '../pagination.ts';
import { Resource } from './resource.ts';

export type AuditEvent = Schemas['AuditEvent'];
export type AuditAction = AuditEvent['action'];
export type ListAuditEventsParams = OperationQuery<'audit.list'>;

/** The audit log: who changed keys, members, webhooks, domains, numbers, suppressions, topics and broadcasts. */
export class AuditEvents extends Resource {
  /**
   * audit.list: newest first; filter by action, actor id or time (a full key only).
   * @example for await (const e of tidings.auditEvents.list({ action: 'apiKey.rotated' })) console.log(e.actor, e.targetId);
   */
  list(params: ListAuditEventsParams = {}, options?: RequestOptions): PageIterator<AuditEvent> {
    return this.client.list('audit.list', { query: params }, options);
  }
}
