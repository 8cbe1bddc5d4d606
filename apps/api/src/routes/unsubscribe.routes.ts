import { findUnsubscribeTarget, readUnsubscribeToken, unsubscribe, unsubscribeToken } from '@tidings/core';
import { Hono, type Context } from 'hono';
import { html } from 'hono/html';
import type { AppEnv } from '../env.ts';
import { linkNotValid, limitPublicPage, publicPage, publicPageHeaders } from '../public-page.ts';

/**
 * The preference page of the same contact and broadcast as an unsubscribe token (already checked), relative to the
 * unsubscribe page: both are served here, whatever address or path prefix the reader reached us by.
 */
function preferencesLinkOf(c: Context<AppEnv>, token: string): string {
  const secret = c.get('deps').config.broadcasts.unsubscribeSecret;
  return `../p/${unsubscribeToken(secret, readUnsubscribeToken(secret, token)!, 'preferences')}`;
}

/**
 * The unsubscribe link of every broadcast (no API key: the signed token is the authority). `GET /u/{token}` shows a
 * confirm button (a plain form, no JavaScript); `POST /u/{token}` unsubscribes at once, which is also the RFC 8058
 * one-click POST mail clients send (`List-Unsubscribe=One-Click`): from the broadcast's topic only when it has one,
 * else from the channel. Both name the organization and link to its preference page. An unknown or tampered token is
 * 404 and changes nothing. Mail scanners that follow links only GET, so a GET never unsubscribes.
 */
export const unsubscribeRoutes = new Hono<AppEnv>()
  .use('/u/*', publicPageHeaders, limitPublicPage('unsubscribe'))
  .get('/u/:token', async (c) => {
    const token = c.req.param('token');
    const target = await findUnsubscribeTarget(c.get('deps'), token).catch(() => null);
    if (!target) return linkNotValid(c);
    const what = target.channelType === 'email' ? 'emails' : 'text messages';
    const question = target.topic
      ? html`Stop receiving ${what} about <strong>${target.topic.name}</strong> from ${target.orgName}?`
      : html`Stop receiving these ${what} from ${target.orgName}?`;
    return c.html(
      publicPage(
        'Unsubscribe',
        html`<h1>Unsubscribe</h1><p>${question}</p>
<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>
<p><a href="${preferencesLinkOf(c, token)}">Choose what you receive instead</a></p>`,
        target.orgName,
      ),
    );
  })
  .post('/u/:token', async (c) => {
    const token = c.req.param('token');
    const done = await unsubscribe(c.get('deps'), token).catch((error: unknown) => {
      if ((error as { code?: string }).code === 'NOT_FOUND') return null;
      throw error;
    });
    if (!done) return linkNotValid(c);
    const { target } = done;
    const what = target.topic ? html`You will not receive messages about <strong>${target.topic.name}</strong> any more.` : html`You will not receive these messages any more.`;
    return c.html(
      publicPage(
        'Unsubscribed',
        html`<h1>You are unsubscribed</h1><p>${what}</p><p><a href="${preferencesLinkOf(c, token)}">Manage your preferences</a> to change your mind.</p>`,
        target.orgName,
      ),
      200,
    );
  });
