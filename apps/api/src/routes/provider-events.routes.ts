import { receiveProviderCallback, type CallbackProvider } from '@tidings/core';
import { Hono } from 'hono';
import type { AppEnv } from '../env.ts';
import { limitPerClient } from '../middleware/client-rate-limit.ts';

/** Callbacks per minute per client address (PROVIDER_EVENT_RATE_LIMIT), counted before the body is read or anything fetched. */
const limitCallbacks = limitPerClient(
  'provider-events',
  (config) => config.providerEventRateLimit,
  (c, resetSeconds) => c.json({ code: 'TOO_MANY_REQUESTS', message: `Too many provider callbacks from this address; retry in ${resetSeconds} s.` }, 429),
);

/**
 * Provider callbacks: POST /v1/provider-events/{resend|telnyx|twilio|ses}. They carry the provider's signature instead
 * of an API key, so app.ts lets them past API-key auth and the per-key rate limit; they are limited per client
 * address instead, and the signature check in core is their authentication. The body is read raw: each signature
 * covers the exact bytes (or, for Twilio, the form fields).
 */
export const providerEventRoutes = new Hono<AppEnv>().post('/provider-events/:provider{resend|telnyx|twilio|ses}', limitCallbacks, async (c) =>
  c.json(await receiveProviderCallback(c.get('deps'), c.req.param('provider') as CallbackProvider, await c.req.text(), Object.fromEntries(c.req.raw.headers)), 200),
);
