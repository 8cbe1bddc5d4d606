import { readTrackingToken, recordTrackingHit, type TrackingSubject } from '@tidings/core';
import { Hono, type Context } from 'hono';
import type { AppEnv } from '../env.ts';

// The smallest transparent GIF (1x1, 43 bytes).
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const NO_CACHE = { 'Cache-Control': 'no-store, no-cache, must-revalidate, private, max-age=0', Pragma: 'no-cache', Expires: '0' };

/** Records the hit; a failure to record never keeps the reader from the image or the link (it is logged). */
async function record(c: Context<AppEnv>, subject: TrackingSubject) {
  const deps = c.get('deps');
  await recordTrackingHit(deps, subject, c.req.header('user-agent')).catch((error: unknown) =>
    deps.logger.warn({ err: error, messageId: subject.messageId, kind: subject.kind }, 'could not record a tracking hit'),
  );
}

/**
 * Tidings' own engagement tracking (no API key: the signed token is the authority). `GET /o/{token}` records the
 * message's open and answers a 1x1 GIF that no cache keeps; `GET /c/{token}` records the click and answers 302 to the
 * link the token signs, and only that (no parameter chooses where it goes). Anything not signed by this server: 404.
 * Each hit is one statement: the message comes from the token.
 */
export const trackingRoutes = new Hono<AppEnv>()
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
    return c.body(null, 302, { Location: subject.url, ...NO_CACHE });
  });
