import { findUnsubscribeTarget, unsubscribe } from '@tidings/core';
import { Hono, type Context } from 'hono';
import { html } from 'hono/html';
import type { AppEnv } from '../env.ts';
import { limitPerClient } from '../middleware/client-rate-limit.ts';

/** A small page that works without JavaScript or styles from elsewhere. */
const page = (title: string, body: ReturnType<typeof html>) => html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${title}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}button{font:inherit;padding:.5rem 1rem;cursor:pointer}</style>
</head><body>${body}</body></html>`;

const notFound = (c: Context<AppEnv>) => c.html(page('Link not valid', html`<h1>This link is not valid</h1><p>It may be incomplete. Nothing was changed.</p>`), 404);

/** Unsubscribe requests per minute per client address (UNSUBSCRIBE_RATE_LIMIT). */
const limitUnsubscribes = limitPerClient(
  'unsubscribe',
  (config) => config.broadcasts.unsubscribeRateLimit,
  (c) => c.html(page('Too many requests', html`<h1>Too many requests</h1><p>Please try again in a minute.</p>`), 429),
);

/**
 * The unsubscribe link of every broadcast (no API key: the signed token is the authority). `GET /u/{token}` shows a
 * confirm button (a plain form, no JavaScript); `POST /u/{token}` unsubscribes at once, which is also the RFC 8058
 * one-click POST mail clients send (`List-Unsubscribe=One-Click`). An unknown or tampered token is 404 and changes
 * nothing. Mail scanners that follow links only GET, so a GET never unsubscribes.
 */
export const unsubscribeRoutes = new Hono<AppEnv>()
  .use('/u/*', limitUnsubscribes)
  .get('/u/:token', async (c) => {
    const target = await findUnsubscribeTarget(c.get('deps'), c.req.param('token')).catch(() => null);
    if (!target) return notFound(c);
    const what = target.channelType === 'email' ? 'emails' : 'text messages';
    return c.html(
      page(
        'Unsubscribe',
        html`<h1>Unsubscribe</h1><p>Stop receiving these ${what}?</p>
<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
      ),
    );
  })
  .post('/u/:token', async (c) => {
    const done = await unsubscribe(c.get('deps'), c.req.param('token')).catch((error: unknown) => {
      if ((error as { code?: string }).code === 'NOT_FOUND') return null;
      throw error;
    });
    if (!done) return notFound(c);
    return c.html(page('Unsubscribed', html`<h1>You are unsubscribed</h1><p>You will not receive these messages any more.</p>`), 200);
  });
