import type { Deps } from '../deps.ts';
import { deliveryJobs, deliveryLaneOf } from '../outbox.ts';
import { newId } from '../ids.ts';
import { unitOfWork } from '../unit-of-work.ts';
import { engageMessage } from './engagement.store.ts';
import { EVENT_OF_STATUS } from './message-status.ts';
import { findReportedMessage, type ReportedMessageRef } from './reported-message.ts';
import { readTrackingToken, type TrackingSubject } from '../tracking/tracking-token.ts';

/** What a provider reports about how a delivered message was received. */
export type EngagementReport = ReportedMessageRef & {
  kind: 'opened' | 'clicked' | 'complained' | 'delayed';
  /** The link of a click. */
  link?: string | null;
};

/** Where a message to engage with is found: by id from a report, or by a signed tracking token's id alone. */
type Engagement = {
  messageId: string;
  kind: EngagementReport['kind'];
  link: string | null;
  /** A provider's event id, claimed in the same statement. */
  claim?: { provider: string; eventId: string };
  /** A `clicked` entry's user agent (Tidings' own tracking), kept in the event's data. */
  userAgent?: string | null;
};

/**
 * THE engagement path: every provider callback (Resend today; any other provider that reports opens, clicks,
 * complaints or delays), the sandbox and Tidings' own open pixel and click redirect call this for such a report. In
 * ONE statement it appends a history entry (`opened`, `clicked` with the link, `complained`, `delayed`; the status
 * stays), sets `openedAt`/`clickedAt` on the first open/click (a click counts as an open too), suppresses the
 * address on a complaint (reason `complained`), and records `message.opened|clicked|complained|delayed` (a click's
 * event data carries `link`) with its webhook deliveries. Only outbound messages are engaged with; a provider's event
 * (`eventId`) only once. Counted once whoever reports it: a message's first open only, and a click on a link only
 * when that link of that message has no click in the last SAME_CLICK_WINDOW_MINUTES.
 * @returns whether it changed anything (an unknown message, a replayed event or a repeat is acknowledged and ignored)
 * @example await recordEngagement(deps, { provider: 'resend', providerMessageId: 'e1...', kind: 'clicked', link: 'https://example.com/a' });
 */
export async function recordEngagement(deps: Deps, report: EngagementReport): Promise<{ found: boolean }> {
  const message = await findReportedMessage(deps, report);
  if (!message) return { found: false };
  // a provider that tracks clicks itself reports the link it saw: ours, when the email went out with our tracking
  const link = report.kind === 'clicked' ? linkBehindTracking(deps, report.link ?? null) : null;
  const engaged = await engage(deps, {
    messageId: message.id,
    kind: report.kind,
    link,
    claim: report.eventId ? { provider: report.provider, eventId: report.eventId } : undefined,
  });
  return { found: engaged };
}

/** The link a `/c/{token}` URL of ours stands for; any other link as it is. */
function linkBehindTracking(deps: Pick<Deps, 'config'>, link: string | null): string | null {
  const prefix = `${deps.config.publicApiUrl.replace(/\/+$/, '')}/c/`;
  if (!link?.startsWith(prefix)) return link;
  return readTrackingToken(deps.config.broadcasts.unsubscribeSecret, 'click', link.slice(prefix.length).split(/[?#]/)[0]!)?.url ?? link;
}

/**
 * Records an open or click that came through Tidings' own tracking (`/o/{token}`, `/c/{token}`): the message comes
 * from the signed token, so this is one statement and no lookup before it (and a dispatch to the queue when webhook
 * endpoints want the event).
 * @returns whether it counted (false: a repeat inside the rules above, or a message that is gone)
 * @example await recordTrackingHit(deps, { kind: 'click', messageId, url }, c.req.header('user-agent'));
 */
export async function recordTrackingHit(deps: Deps, subject: TrackingSubject, userAgent: string | null | undefined): Promise<boolean> {
  return engage(deps, {
    messageId: subject.messageId,
    kind: subject.kind === 'open' ? 'opened' : 'clicked',
    link: subject.kind === 'click' ? subject.url : null,
    userAgent: userAgent ? userAgent.slice(0, 500) : null,
  });
}

async function engage(deps: Deps, engagement: Engagement): Promise<boolean> {
  const at = deps.now().toISOString();
  return unitOfWork(
    deps,
    async (db, outbox) => {
      const row = await engageMessage(db, { ...engagement, at, event: { id: newId('evt'), type: EVENT_OF_STATUS[engagement.kind]! } });
      if (!row) return false;
      // a broadcast's engagement goes to the bulk webhook lane, as its other events do
      const deliveries = row.deliveryIds.map((id) => ({ id, orgId: row.orgId, createdAt: row.deliveriesCreatedAt }));
      outbox.add(deliveryJobs(deliveries, deliveryLaneOf(row)));
      return true;
    },
    { transaction: false },
  );
}
