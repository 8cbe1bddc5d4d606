import type { Webhook, WebhookAttempt, WebhookDelivery } from '@tidings/contracts';
import { Table } from './list.tsx';
import { Time } from './render.tsx';
import { WebhookBadge, whyDisabled } from './webhook-state.tsx';

/** The organization's endpoints, each with its state and, when disabled, why. */
export function WebhooksTable({ webhooks }: { webhooks: Webhook[] }) {
  return (
    <Table headers={['Endpoint', 'Events', 'State', 'Created']}>
      {webhooks.map((webhook) => (
        <tr data-webhook-id={webhook.id}>
          <td class="name">
            <a href={`/webhooks/${webhook.id}`}>{webhook.url}</a>
            {webhook.description && <small class="muted block">{webhook.description}</small>}
          </td>
          <td title={webhook.events.join(', ')}>{webhook.events.length === 1 ? <code>{webhook.events[0]}</code> : `${webhook.events.length} event types`}</td>
          <td>
            <WebhookBadge webhook={webhook} />
            {!webhook.enabled && <small class="muted block reason">{whyDisabled(webhook)}</small>}
          </td>
          <td>
            <Time at={webhook.createdAt} />
          </td>
        </tr>
      ))}
    </Table>
  );
}

/** A delivery's status with what the endpoint last answered. */
export function DeliveryStatus({ delivery }: { delivery: WebhookDelivery }) {
  const last = delivery.lastAttempt;
  return (
    <>
      <span class={`badge ${delivery.status}`}>{delivery.status}</span>
      {last && (
        <small class="muted block">
          {last.statusCode ? `HTTP ${last.statusCode}` : last.error} · {last.durationMs} ms
        </small>
      )}
    </>
  );
}

/** The recent deliveries of an endpoint, newest first; each opens to its payload and attempts. */
export function DeliveriesTable({ deliveries }: { deliveries: WebhookDelivery[] }) {
  if (deliveries.length === 0) return <p class="muted">No deliveries yet. Send a test event to see one here.</p>;
  return (
    <Table headers={['Event', 'Status', 'Attempts', 'Created', 'Next try']}>
      {deliveries.map((delivery) => (
        <tr data-delivery-id={delivery.id}>
          <td>
            <a href={`/webhooks/${delivery.webhookId}/deliveries/${delivery.id}`}>
              <code>{delivery.eventType}</code>
            </a>
            <small class="muted block">{delivery.eventId}</small>
          </td>
          <td>
            <DeliveryStatus delivery={delivery} />
          </td>
          <td>{delivery.attempts}</td>
          <td>
            <Time at={delivery.createdAt} />
          </td>
          <td>
            <Time at={delivery.nextAttemptAt} />
          </td>
        </tr>
      ))}
    </Table>
  );
}

/** Every attempt of a delivery, oldest first: what the endpoint answered (or why nothing came), and how fast. */
export function AttemptsTable({ attempts }: { attempts: WebhookAttempt[] }) {
  if (attempts.length === 0) return <p class="muted">Not tried yet.</p>;
  return (
    <Table headers={['#', 'At', 'Answer', 'Duration', 'Body or error']} class="striped attempts">
      {attempts.map((attempt) => (
        <tr>
          <td>{attempt.number}</td>
          <td>
            <Time at={attempt.at} />
          </td>
          <td>
            <span class={`badge ${attempt.statusCode && attempt.statusCode < 300 ? 'succeeded' : 'failed'}`}>
              {attempt.statusCode ? `HTTP ${attempt.statusCode}` : 'no answer'}
            </span>
          </td>
          <td>{attempt.durationMs} ms</td>
          <td>
            {attempt.responseBody && <pre class="answer">{attempt.responseBody}</pre>}
            {attempt.error && <small class="muted block">{attempt.error}</small>}
          </td>
        </tr>
      ))}
    </Table>
  );
}
