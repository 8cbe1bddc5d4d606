import type { BroadcastStatus, BroadcastWithCounts } from '@tidings/contracts';
import { Facts } from './facts.tsx';
import { Time } from './render.tsx';

/** Recipients done with: handed to the provider (whatever came of it) or not sent to (suppressed). */
const doneOf = (counts: BroadcastWithCounts['counts']) => counts.sent + counts.delivered + counts.failed + counts.bounced + counts.suppressed;
const isUnderway = (status: BroadcastStatus) => status === 'scheduled' || status === 'sending';

/** A broadcast's status, and for a broadcast whose messages failed how many did: never a green "sent" over failures. */
export function StatusBadge({ broadcast }: { broadcast: BroadcastWithCounts }) {
  const { status, counts } = broadcast;
  const failed = counts.failed + counts.bounced;
  const tone = failed > 0 && !isUnderway(status) ? 'bad' : status === 'sent' ? 'ok' : status === 'canceled' ? 'off' : status === 'draft' ? 'draft' : 'pending';
  return <span class={`badge status-${tone}`}>{failed > 0 ? `${status}, ${failed} failed` : status}</span>;
}

/** How many recipients are done with, as a bar and in numbers; a broadcast not started yet says so. */
export function ProgressBar({ broadcast }: { broadcast: BroadcastWithCounts }) {
  const { counts } = broadcast;
  const done = doneOf(counts);
  if (broadcast.status === 'draft' || broadcast.status === 'scheduled') return <span class="muted">not started</span>;
  return (
    <span class="broadcast-progress">
      <progress value={String(done)} max={String(Math.max(counts.recipients, 1))} aria-label={`${done} of ${counts.recipients} recipients done`}></progress>
      <small>
        {done} of {counts.recipients}
      </small>
    </span>
  );
}

/** The broadcast's quiet hours as people read them: "quiet hours (21:00 to 08:00, recipient's time)". */
const quietHoursText = ({ quietHours }: BroadcastWithCounts) => (quietHours ? `quiet hours (${quietHours.start} to ${quietHours.end}, recipient's time)` : 'quiet hours');

/**
 * Progress, counts and the way to cancel; while the broadcast is under way the script fetches this part again
 * (data-refresh), so the cancel button goes when there is nothing left to cancel.
 */
export function ProgressCard({ broadcast, canCancel, held }: { broadcast: BroadcastWithCounts; canCancel: boolean; held: { first: string; last: string } | null }) {
  const { counts } = broadcast;
  // a canceled broadcast's held messages are canceled with it: nothing is waiting any more
  const showsWaiting = broadcast.status !== 'canceled' && (!!broadcast.quietHours || counts.waiting > 0);
  const shown: [string, number][] = [
    ['Recipients', counts.recipients],
    ...(showsWaiting ? [[`Waiting for ${quietHoursText(broadcast)} to end`, counts.waiting] as [string, number]] : []),
    ['Queued', counts.queued],
    ['Sent', counts.sent],
    ['Delivered', counts.delivered],
    ['Failed', counts.failed],
    ['Bounced', counts.bounced],
    ['Suppressed', counts.suppressed],
    ['Unsubscribed', counts.unsubscribed],
    ['Opened', counts.opened],
    ['Clicked', counts.clicked],
  ];
  return (
    <section id="progress" class="card" aria-labelledby="progress-title" data-refresh={isUnderway(broadcast.status) ? '' : undefined}>
      <h2 id="progress-title">
        Progress <StatusBadge broadcast={broadcast} />
      </h2>
      <ProgressBar broadcast={broadcast} />
      <Facts
        facts={[
          ['Scheduled for', broadcast.scheduledAt && <Time at={broadcast.scheduledAt} />],
          ['Started', broadcast.startedAt && <Time at={broadcast.startedAt} />],
          // at the slower of its sendRate and its provider's pace (broadcast.get's estimatedFinishAt)
          ['Estimated finish', broadcast.estimatedFinishAt && <Time at={broadcast.estimatedFinishAt} />],
          ['Completed', broadcast.completedAt && <Time at={broadcast.completedAt} />],
          ['Canceled', broadcast.canceledAt && <Time at={broadcast.canceledAt} />],
          [
            'Held by quiet hours',
            showsWaiting && held && (
              <span class="held-until">
                {counts.waiting === 1 ? '1 message goes' : `${counts.waiting} messages go`} out at <Time at={held.first} />
                {held.last !== held.first && (
                  <>
                    {' '}
                    to <Time at={held.last} />
                  </>
                )}{' '}
                (UTC), when the window ends in each recipient's time zone
              </span>
            ),
          ],
        ]}
      />
      <dl class="counts">
        {shown.map(([label, value]) => (
          <div data-count={label.toLowerCase()}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {Object.keys(broadcast.failedReasons).length > 0 && (
        <p class="failed-reasons">
          Failed:{' '}
          {Object.entries(broadcast.failedReasons)
            .map(([code, count]) => `${count} ${code}`)
            .join(', ')}
          . {canCancel && (broadcast.status === 'sent' || broadcast.status === 'sending') && <a href={`/broadcasts/${broadcast.id}/retry-failed`}>Retry the failed messages…</a>}
        </p>
      )}
      {canCancel && isUnderway(broadcast.status) && (
        <a href={`/broadcasts/${broadcast.id}/cancel`} role="button" class="outline danger-outline cancel-broadcast">
          Cancel broadcast…
        </a>
      )}
    </section>
  );
}
