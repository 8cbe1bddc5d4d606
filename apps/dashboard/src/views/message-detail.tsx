import type { MessageWithEvents } from '@tidings/contracts';
import { EVENT_OF_STATUS } from '@tidings/core';
import { Facts, type Fact } from './facts.tsx';
import { Table } from './list.tsx';
import { ChannelLabel, StatusBadge } from './message-views.tsx';
import { formatTime, Time } from './render.tsx';

/** What a waiting message waits for (its `deferredReason`), as people read it. */
const DEFERRED_REASONS: Record<NonNullable<MessageWithEvents['deferredReason']>, string> = {
  provider_rate_limit: "its provider's rate limit",
  sender_rate_limit: "its number's sending rate",
  quiet_hours: "the end of its broadcast's quiet hours",
  send_rate: "its turn at its broadcast's send rate",
};

/** What is known about a message; empty values are left out. */
export function MessageFacts({ message }: { message: MessageWithEvents }) {
  const facts: Fact[] = [
    ['Status', <StatusBadge status={message.status} />],
    ['Channel', <ChannelLabel message={message} />],
    ['From', message.from],
    ['To', message.to],
    ['Provider', message.provider],
    ['Provider’s id', message.providerMessageId && <code>{message.providerMessageId}</code>],
    ['Created', <Time at={message.createdAt} />],
    ['Scheduled for', message.scheduledAt && <Time at={message.scheduledAt} />],
    [
      'Waiting',
      message.deferredUntil && (
        <>
          until <Time at={message.deferredUntil} /> for {DEFERRED_REASONS[message.deferredReason ?? 'provider_rate_limit']}
        </>
      ),
    ],
    ['Sent', message.sentAt && <Time at={message.sentAt} />],
    ['Delivered', message.deliveredAt && <Time at={message.deliveredAt} />],
    ['Failed', message.failedAt && <Time at={message.failedAt} />],
    ['Opened', message.openedAt && <Time at={message.openedAt} />],
    ['First click', message.clickedAt && <Time at={message.clickedAt} />],
    ['Error', message.error && `${message.error.code}: ${message.error.message}`],
    ['Attempts', message.attempts],
    ['Segments', message.segments],
    ['Template', message.templateId && `${message.templateId} (version ${message.templateVersion})`],
    ['Contact', message.contactId],
    ['Tags', message.tags.length > 0 && message.tags.join(', ')],
    ['Metadata', Object.keys(message.metadata).length > 0 && <code>{JSON.stringify(message.metadata)}</code>],
  ];
  return <Facts facts={facts} />;
}

/** Each status the message went through, when, and the webhook event it sent. */
export function StatusHistory({ message }: { message: MessageWithEvents }) {
  return (
    <Table headers={['Status', 'At', 'Webhook event', 'Detail']} class="striped history">
      {message.events.map((event) => (
        <tr>
          <td>
            <StatusBadge status={event.status} />
          </td>
          <td>
            <time datetime={event.createdAt} title={`${event.createdAt} (UTC)`}>
              {formatTime(event.createdAt)}:{String(new Date(event.createdAt).getUTCSeconds()).padStart(2, '0')}
            </time>
          </td>
          <td>{EVENT_OF_STATUS[event.status] ? <code>{EVENT_OF_STATUS[event.status]}</code> : <span class="muted">none</span>}</td>
          <td class="break">{event.error ? `${event.error.code}: ${event.error.message}` : (event.link ?? '')}</td>
        </tr>
      ))}
    </Table>
  );
}

/** Opens and clicks of an email, from its history (Tidings' own tracking and the provider's, each counted once). */
export function Engagement({ message }: { message: MessageWithEvents }) {
  const opens = message.events.filter((event) => event.status === 'opened').length;
  const clicks = new Map<string, number>();
  for (const event of message.events) if (event.status === 'clicked' && event.link) clicks.set(event.link, (clicks.get(event.link) ?? 0) + 1);
  return (
    <section class="card" aria-labelledby="engagement-title" id="engagement">
      <h2 id="engagement-title">Opens and clicks</h2>
      <dl class="counts">
        <div data-count="opens">
          <dt>Opens</dt>
          <dd>{opens}</dd>
        </div>
        <div data-count="clicks">
          <dt>Clicks</dt>
          <dd>{[...clicks.values()].reduce((sum, n) => sum + n, 0)}</dd>
        </div>
      </dl>
      {clicks.size > 0 && (
        <Table headers={['Link', 'Clicks']}>
          {[...clicks].map(([link, count]) => (
            <tr data-link={link}>
              <td class="break">{link}</td>
              <td>{count}</td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
