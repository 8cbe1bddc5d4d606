import type { Webhook } from '@tidings/contracts';
import type { Context } from 'hono';
import type { Reveal } from '../auth/reveal.ts';
import type { DashEnv } from '../env.ts';
import { CsrfField } from './layout.tsx';
import { RevealCard } from './reveal-card.tsx';

const BASE = '/webhooks';
type Env = Context<DashEnv>;

/** An endpoint's new signing secret, shown once: after it is added or rotated. */
export function SecretCard({ reveal }: { reveal: Reveal }) {
  return (
    <RevealCard
      id="new-secret-card"
      title={reveal.kind === 'created' ? 'Endpoint added: its signing secret' : 'New signing secret'}
      inputId="new-secret"
      value={reveal.secret}
      label="Signing secret"
    >
      <p>
        Verify every delivery with this secret{reveal.kind === 'rotated' && '; the previous one also signs for 24 hours'}. Copy it now: for your security it will not be shown
        again.
      </p>
    </RevealCard>
  );
}

/** What a manager does to an endpoint: a test event, rotate, disable or enable. */
export function DetailActions({ c, webhook }: { c: Env; webhook: Webhook }) {
  return (
    <div class="actions page-actions">
      {webhook.enabled && (
        <form method="post" action={`${BASE}/${webhook.id}/test`}>
          <CsrfField c={c} />
          <button type="submit">Send test event</button>
        </form>
      )}
      <a href={`${BASE}/${webhook.id}/rotate`} role="button" class="secondary outline">
        Rotate secret…
      </a>
      {webhook.enabled ? (
        <a href={`${BASE}/${webhook.id}/disable`} role="button" class="outline danger-outline">
          Disable…
        </a>
      ) : (
        <form method="post" action={`${BASE}/${webhook.id}/enable`}>
          <CsrfField c={c} />
          <button type="submit">{webhook.disabledReason === 'manual' ? 'Enable' : 'Re-enable'}</button>
        </form>
      )}
    </div>
  );
}

/** Delivers again every delivery since a time (or only the failed ones): for an endpoint that is back after an outage. */
export function ReplayForm({ c, webhook }: { c: Env; webhook: Webhook }) {
  const since = (webhook.failingSince ?? new Date(c.var.deps.now().getTime() - 3_600_000).toISOString()).slice(0, 16);
  return (
    <form method="post" action={`${BASE}/${webhook.id}/replay`} class="card replay-form" aria-label="Replay deliveries">
      <CsrfField c={c} />
      <label>
        Replay deliveries since (UTC)
        <input type="datetime-local" name="since" value={since} required />
      </label>
      <label>
        <input type="checkbox" name="onlyFailed" value="yes" /> only those that failed
      </label>
      <button type="submit" class="secondary">
        Replay since…
      </button>
    </form>
  );
}
