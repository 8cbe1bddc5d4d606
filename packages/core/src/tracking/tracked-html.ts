import type { Message as MessageRow } from '@tidings/db';
import type { Deps } from '../deps.ts';
import type { OutgoingTransform } from '../messages/outgoing-message.ts';
import { trackHtml } from './track-html.ts';

/**
 * `html` with the message's open pixel and click links, as the provider is given it (and the dashboard shows it).
 * @example trackedHtml(deps, row, row.html) // '<a href="https://api.example.com/c/...">'
 */
export function trackedHtml({ config }: Pick<Deps, 'config'>, message: MessageRow, html: string): string {
  return trackHtml(html, {
    opens: message.trackOpens,
    clicks: message.trackClicks,
    messageId: message.id,
    // a live message's domain was verified when it was accepted; a test key's or the sandbox's link only shows
    redirectsClicks: message.mode === 'live' && message.provider !== 'sandbox',
    publicApiUrl: config.publicApiUrl,
    secret: config.broadcasts.unsubscribeSecret,
  });
}

/**
 * A tracked email's html gets Tidings' open pixel and click redirects on its way out, so every provider (and
 * message.getSource) sends them.
 */
export const trackingTransform: OutgoingTransform = {
  name: 'tracking',
  stage: 'source',
  rewriteFor(deps, message) {
    if (!message.html || !(message.trackOpens || message.trackClicks)) return null;
    return { email: (email) => (email.html ? { ...email, html: trackedHtml(deps, message, email.html) } : email) };
  },
};
