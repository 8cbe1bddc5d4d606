import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { html } from 'hono/html';
import type { AppEnv } from './env.ts';
import { limitPerClient } from './middleware/client-rate-limit.ts';

type Html = ReturnType<typeof html>;

/**
 * The look the public pages share (unsubscribe, preferences): a small page that works without JavaScript or styles
 * from elsewhere, headed by the organization's name when known.
 * @example c.html(publicPage('Unsubscribe', html`<h1>...</h1>`, 'Acme'))
 */
export const publicPage = (title: string, body: Html, orgName?: string) => html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${title}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}button{font:inherit;padding:.5rem 1rem;cursor:pointer}
.org{color:#555;font-size:.9rem;text-transform:uppercase;letter-spacing:.05em;margin:0}fieldset{border:1px solid #ddd;border-radius:6px;margin:1rem 0;padding:.5rem 1rem}
label{display:block;margin:.5rem 0}label small{display:block;color:#555;margin-left:1.6rem}.note{background:#f4f4f4;padding:.5rem 1rem;border-radius:6px}
form.inline{display:inline}a{color:#0b57d0}</style>
</head><body>${orgName ? html`<p class="org">${orgName}</p>` : ''}${body}</body></html>`;

// The pages load nothing from anywhere, post only to themselves, and are never framed (their one-click forms could be
// clickjacked otherwise); no Referer carries their signed links on.
const PAGE_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

/**
 * Sets the public pages' security headers on every answer below it (set before the handler, so errors carry them too).
 * @example .use('/p/*', publicPageHeaders)
 */
export const publicPageHeaders = createMiddleware<AppEnv>(async (c, next) => {
  for (const [name, value] of Object.entries(PAGE_HEADERS)) c.header(name, value);
  await next();
});

/** The answer for a link we did not sign (or whose contact or broadcast is gone): 404, nothing changed. */
export const linkNotValid = (c: Context<AppEnv>) =>
  c.html(publicPage('Link not valid', html`<h1>This link is not valid</h1><p>It may be incomplete. Nothing was changed.</p>`), 404);

/**
 * Requests per minute per client address on the public pages (UNSUBSCRIBE_RATE_LIMIT), counted per page kind.
 * @example .use('/p/*', limitPublicPage('preferences'))
 */
export const limitPublicPage = (name: string) =>
  limitPerClient(
    name,
    (config) => config.broadcasts.unsubscribeRateLimit,
    (c) => c.html(publicPage('Too many requests', html`<h1>Too many requests</h1><p>Please try again in a minute.</p>`), 429),
  );
