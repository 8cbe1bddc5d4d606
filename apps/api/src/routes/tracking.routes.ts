import { readTrackingToken, recordTrackingHit, type TrackingSubject } from '@tidings/core';
import { Hono, type Context } from 'hono';
import { html } from 'hono/html';
import type { AppEnv } from '../env.ts';
import { limitPerClient } from '../middleware/client-rate-limit.ts';
import { publicPage, publicPageHeaders } from '../public-page.ts';

// The smallest transparent GIF (1x1, 42 bytes).
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const NO_CACHE = { 'Cache-Control': 'no-store, no-cache, must-revalidate, private, max-age=0', Pragma: 'no-cache', Expires: '0' };

/** Records the hit; a failure to record never keeps the reader from the image or the link (it is logged). */
async function record(c: Context<AppEnv>, subject: TrackingSubject) {
  const deps = c.get('deps');
  await recordTrackingHit(deps, subject, c.req.header('user-agent')).catch((error: unknown) =>
    deps.logger.warn({ err: error, messageId: subject.messageId, kind: subject.kind }, 'could not record a tracking hit'),
  );
}

/** The link of a sandbox or test message's click, shown rather than followed: our host redirects only for live mail. */
const shownLink = (c: Context<AppEnv>, url: string) =>
  c.html(
    publicPage(
      'Link in a test message',
      html`<h1>Link in a test message</h1><p>This link came with a test message, so it is shown here rather than followed. It leads to:</p><p><a href="${url}" rel="noopener noreferrer nofollow">${url}</a></p>`,
    ),
    200,
    NO_CACHE,
  );

/** Opens and clicks per minute per client address (TRACKING_RATE_LIMIT): a flood is refused before any statement. */
const limitTracking = (name: string) =>
  limitPerClient(
    name,
    (config) => config.trackingRateLimit,
    (c) => c.text('Too many requests', 429, NO_CACHE),
  );

/**
 * Tidings' own engagement tracking (no API key: the signed token is the authority). `GET /o/{token}` records the
 * message's open and answers a 1x1 GIF that no cache keeps; `GET /c/{token}` records the click and answers 302 to the
 * link the token signs, and only that (no parameter chooses where it goes); the link of a sandbox or test message is
 * shown on a page instead. Anything not signed by this server: 404. Each hit is one statement: the message comes from
 * the token. Both are limited per client address.
 */
export const trackingRoutes = new Hono<AppEnv>()
  .use('/o/*', limitTracking('opens'))
  .use('/c/*', publicPageHeaders, limitTracking('clicks'))
  .get('/o/:token', async (c) => {
    const subject = readTrackingToken(c.get('deps').config.broadcasts.unsubscribeSecret, 'open', c.req.param('token'));
    if (!subject) return c.text('Not found', 404);
    await record(c, subject);
    return c.body(PIXEL, 200, { 'Content-Type': 'image/gif', ...NO_CACHE });
  })
  .get('/c/:token', async (c) => {
    const subject = readTrackingToken(c.get('deps').config.broadcasts.unsubscribeSecret, 'click', c.req.param('token'));
    if (!subject) return c.text('Not found', 404);
    await record(c, subject);
    if (subject.showsOnly) return shownLink(c, subject.url);
    return c.body(null, 302, { Location: subject.url, ...NO_CACHE });
  });
