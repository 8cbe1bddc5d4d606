import type { Webhook } from '@tidings/contracts';
import { listAutoDisabledWebhooks } from '@tidings/core';
import type { Context } from 'hono';
import { canManage, type DashEnv } from '../env.ts';
import { formatTime } from './time.tsx';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How long every page tells managers that an endpoint was disabled automatically; its own page always says why. */
const NOTICE_DAYS = 7;

/**
 * Why a webhook is disabled, in a sentence: by a person, after a 410, or after failing for days.
 * @example whyDisabled(webhook) // "Disabled automatically on Nov 23, 2026 09:05 after failing for 5 days (since Nov 18, 2026 09:05)."
 */
export function whyDisabled(webhook: Webhook): string | null {
  if (webhook.enabled) return null;
  const on = webhook.disabledAt ? ` on ${formatTime(webhook.disabledAt)}` : '';
  if (webhook.disabledReason === 'gone') return `Disabled automatically${on}: the endpoint answered 410 Gone, which asks for no more deliveries.`;
  if (webhook.disabledReason === 'failing' && webhook.failingSince) {
    const end = webhook.disabledAt ? new Date(webhook.disabledAt).getTime() : Date.now();
    const days = Math.max(1, Math.round((end - new Date(webhook.failingSince).getTime()) / DAY_MS));
    return `Disabled automatically${on} after failing for ${days} days straight (since ${formatTime(webhook.failingSince)}).`;
  }
  if (webhook.disabledReason === 'failing') return `Disabled automatically${on} after failing for days straight.`;
  return `Disabled by a person${on}.`;
}

/** The state badge of a webhook: Enabled, Failing since … (amber: its deliveries are being retried), Disabled, or Auto-disabled. */
export function WebhookBadge({ webhook }: { webhook: Webhook }) {
  if (webhook.enabled && webhook.failingSince) return <span class="badge failing">Failing since {formatTime(webhook.failingSince)}</span>;
  if (webhook.enabled) return <span class="badge enabled">Enabled</span>;
  return <span class="badge disabled">{webhook.disabledReason === 'manual' ? 'Disabled' : 'Auto-disabled'}</span>;
}

/**
 * The banner on every page that tells owners and operators about endpoints disabled automatically in the last week,
 * with the reason and a link (the API's promise: "a person is told"). Renders nothing for members or when all is well.
 */
export async function AutoDisabledNotice({ c }: { c: Context<DashEnv> }) {
  const signedIn = c.var.signedIn;
  if (!signedIn || !canManage(signedIn)) return null;
  const since = new Date(c.var.deps.now().getTime() - NOTICE_DAYS * DAY_MS);
  const webhooks = await listAutoDisabledWebhooks(c.var.deps, signedIn.membership.orgId, since);
  if (webhooks.length === 0) return null;
  return (
    <div class="notice" role="alert">
      <strong>{webhooks.length === 1 ? 'A webhook endpoint was disabled' : `${webhooks.length} webhook endpoints were disabled`}</strong>
      <ul>
        {webhooks.map((webhook) => (
          <li>
            <a href={`/webhooks/${webhook.id}`}>{webhook.url}</a>: {whyDisabled(webhook)} Nothing is delivered to it until it is enabled again.
          </li>
        ))}
      </ul>
    </div>
  );
}
