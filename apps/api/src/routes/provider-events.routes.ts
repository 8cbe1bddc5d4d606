import { receiveProviderCallback, type CallbackProvider } from '@tidings/core';
import { Hono } from 'hono';
import type { AppEnv } from '../env.ts';

/**
 * Provider callbacks: POST /v1/provider-events/{resend|telnyx|twilio|ses}. They carry the provider's signature instead
 * of an API key, so app.ts lets them past API-key auth and rate limiting; the signature check in core is their
 * authentication. The body is read raw: each signature covers the exact bytes (or, for Twilio, the form fields).
 */
export const providerEventRoutes = new Hono<AppEnv>().post('/provider-events/:provider{resend|telnyx|twilio|ses}', async (c) =>
  c.json(await receiveProviderCallback(c.get('deps'), c.req.param('provider') as CallbackProvider, await c.req.text(), Object.fromEntries(c.req.raw.headers)), 200),
);
