import { receiveProviderCallback } from '@tidings/core';
import { Hono } from 'hono';
import type { AppEnv } from '../env.ts';

/**
 * Provider status callbacks. They carry the provider's signature instead of an API key, so app.ts lets them past
 * API-key auth and rate limiting; the signature check in core is their authentication.
 */
export const providerEventRoutes = new Hono<AppEnv>()
  .post('/provider-events/resend', async (c) =>
    c.json(await receiveProviderCallback(c.var.deps, 'resend', await c.req.text(), Object.fromEntries(c.req.raw.headers)), 200),
  )
  .post('/provider-events/telnyx', async (c) =>
    c.json(await receiveProviderCallback(c.var.deps, 'telnyx', await c.req.text(), Object.fromEntries(c.req.raw.headers)), 200),
  );
