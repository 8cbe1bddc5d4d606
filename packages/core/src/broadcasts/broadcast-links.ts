import type { BroadcastLinks } from '@tidings/contracts';
import type { KeyMode } from '@tidings/providers';
import type { Deps } from '../deps.ts';
import { foundOr404 } from '../errors.ts';
import { ofMode } from './broadcast.service.ts';

/** The most links broadcast.links lists. */
const MAX_LINKS = 1000;

/**
 * broadcast.links: each clicked link of the broadcast's messages (the `clicked` history entries, from Tidings' own
 * tracking and the provider's, already counted once), with its clicks and the messages that clicked it, most clicked
 * first. Two queries: the broadcast (404 for another organization's or another mode's), then one grouped read through
 * the messages' (orgId, broadcastId) index and each one's history.
 * @example const links = await broadcastLinks(deps, orgId, 'brd_...', 'live');
 */
export async function broadcastLinks(deps: Pick<Deps, 'db'>, orgId: string, id: string, mode?: KeyMode): Promise<BroadcastLinks> {
  const broadcast = foundOr404(await deps.db.broadcast.findFirst({ where: { id, orgId, ...ofMode(mode) }, select: { id: true } }), 'Broadcast');
  return deps.db.$queryRaw<BroadcastLinks>`
    SELECT e."link" AS "url", count(*)::int AS "clicks", count(DISTINCT e."messageId")::int AS "uniqueClicks"
    FROM "Message" m JOIN "MessageStatusEvent" e ON e."messageId" = m."id"
    WHERE m."orgId" = ${orgId} AND m."broadcastId" = ${broadcast.id} AND m."clickedAt" IS NOT NULL
      AND e."activity" = 'clicked' AND e."link" IS NOT NULL
    GROUP BY e."link" ORDER BY "clicks" DESC, "url" LIMIT ${MAX_LINKS}`;
}
