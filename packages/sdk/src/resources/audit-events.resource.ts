import type { AuditAction, AuditEvent, AuditListQuery, z } from '@tidings/contracts';
import type { RequestOptions } from '../client.ts';
import type { ListParams, PageIterator } from '../pagination.ts';
import { Resource } from './resource.ts';

export type { AuditAction, AuditEvent };
export type ListAuditEventsParams = ListParams & Partial<Omit<z.input<typeof AuditListQuery>, keyof ListParams>>;

/** The audit log: who changed keys, members, webhooks, domains, numbers, suppressions, topics and broadcasts. */
export class AuditEvents extends Resource {
  /**
   * audit.list: newest first; filter by action, actor id or time (a full key only).
   * @example for await (const e of tidings.auditEvents.list({ action: 'apiKey.rotated' })) console.log(e.actor, e.targetId);
   */
  list(params: ListAuditEventsParams = {}, options?: RequestOptions): PageIterator<AuditEvent> {
    return this.client.list<AuditEvent>('audit.list', { query: params }, options);
  }
}
