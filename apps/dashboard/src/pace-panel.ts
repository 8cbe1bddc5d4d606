import type { PaceAccountStatus } from '@tidings/core';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * The provider pace on the Queues page, beside Bull Board's own screens: each paced provider account's rate, its
 * use and deferrals a second over the last 10 s, and how far ahead it is booked (as `tidings status` shows them).
 * Read when the page is opened; `null`: the limiters could not be read.
 * @example pacePanelHtml([{ provider: 'resend', account: 'resend', ratePerSecond: 5, usePerSecond: 4.7, deferralsPerSecond: 0, bookedAheadMs: 0 }])
 */
export function pacePanelHtml(accounts: PaceAccountStatus[] | null): string {
  const rows =
    accounts === null
      ? '<tr><td colspan="5">Unknown: Redis does not answer.</td></tr>'
      : accounts.length === 0
        ? '<tr><td colspan="5">No paced provider account (the sandbox and an SMTP relay without SMTP_RATE_PER_SECOND are not paced).</td></tr>'
        : accounts
            .map((a) => {
              const name = a.account === a.provider ? a.provider : `${a.provider} ${a.account}`;
              const ahead = a.bookedAheadMs > 0 ? `${(a.bookedAheadMs / 1000).toFixed(1)} s` : '–';
              return `<tr data-account="${escapeHtml(name)}"><th scope="row">${escapeHtml(name)}</th><td>${a.ratePerSecond}/s</td><td>${a.usePerSecond}/s</td><td>${a.deferralsPerSecond}/s</td><td>${ahead}</td></tr>`;
            })
            .join('');
  return (
    '<details class="tidings-pace" open><summary>Provider pace</summary><table>' +
    '<thead><tr><th scope="col">Account</th><th scope="col">Rate</th><th scope="col">Use</th><th scope="col">Deferred</th><th scope="col">Booked ahead</th></tr></thead>' +
    `<tbody>${rows}</tbody></table><p>Use and deferrals: a second, over the last 10 s, across every send-worker.</p></details>`
  );
}
