import type { BroadcastLinks } from '@tidings/contracts';
import type { KeyMode } from '@tidings/providers';
import type { Deps } from '../deps.ts';
import { foundOr404 } from '../errors.ts';
import { findBroadcastId, selectBroadcastLinks } from './broadcast.store.ts';

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
  const broadcast = foundOr404(await findBroadcastId(deps.db, orgId, id, mode), 'Broadcast');
  return selectBroadcastLinks(deps.db, orgId, broadcast.id, MAX_LINKS);
}
