import type { Broadcast } from '@tidings/contracts';
import type { Broadcast as BroadcastRow } from '@tidings/db';

const iso = (d: Date | null) => d?.toISOString() ?? null;

/**
 * The API's view of a broadcast row (also the `data` of every `broadcast.*` event).
 * @example c.json(toBroadcast(row), 201)
 */
export function toBroadcast(row: BroadcastRow): Broadcast {
  return {
    id: row.id,
    name: row.name,
    channelType: row.channelType,
    templateId: row.templateId,
    templateVersion: row.templateVersion,
    segmentId: row.segmentId,
    topicId: row.topicId,
    from: row.from,
    variables: (row.variables ?? {}) as Broadcast['variables'],
    tags: row.tags,
    quietHours: row.quietHours as Broadcast['quietHours'],
    sendRate: row.sendRate,
    mode: row.mode,
    status: row.status,
    scheduledAt: iso(row.scheduledAt),
    startedAt: iso(row.startedAt),
    completedAt: iso(row.completedAt),
    canceledAt: iso(row.canceledAt),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
