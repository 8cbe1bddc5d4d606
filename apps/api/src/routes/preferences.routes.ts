import { findPreferences, savePreferences, type PreferenceChoice, type Preferences } from '@tidings/core';
import { Hono, type Context } from 'hono';
import { html } from 'hono/html';
import type { AppEnv } from '../env.ts';
import { linkNotValid, limitPublicPage, publicPage, publicPageHeaders } from '../public-page.ts';

/** The preference form: each public topic a checkbox, the channel's subscription a button (no JavaScript). */
function preferencePage(c: Context<AppEnv>, preferences: Preferences, saved: boolean) {
  const what = preferences.channelType === 'email' ? 'emails' : 'text messages';
  const note = preferences.isTest
    ? html`<p class="note">This link came with a test message: choices made here are not saved.</p>`
    : saved
      ? html`<p class="note" role="status">Your preferences are saved.</p>`
      : '';
  const topics =
    preferences.topics.length === 0
      ? ''
      : html`<form method="post"><input type="hidden" name="action" value="save"><fieldset><legend>Topics</legend>
${preferences.topics.map(
  (t) =>
    html`<input type="hidden" name="shown" value="${t.id}"><label><input type="checkbox" name="topic" value="${t.id}"${t.subscribed ? html` checked` : ''}> ${t.name}${
      t.description ? html`<small>${t.description}</small>` : ''
    }</label>`,
)}
</fieldset><button type="submit">Save preferences</button></form>`;
  const everything = preferences.subscribed
    ? html`<form method="post"><input type="hidden" name="action" value="unsubscribe-all"><p>Or stop all ${what} from ${preferences.orgName}:</p><button type="submit">Unsubscribe from everything</button></form>`
    : html`<p>You are unsubscribed from all ${what} from ${preferences.orgName}.</p><form method="post"><input type="hidden" name="action" value="resubscribe"><button type="submit">Resubscribe</button></form>`;
  return c.html(
    publicPage('Email preferences', html`<h1>Your preferences</h1>${note}<p>Choose what ${preferences.orgName} sends you.</p>${topics}${everything}`, preferences.orgName),
    200,
  );
}

/** The form's fields as a choice; anything else (a missing or unknown action) is null. */
async function choiceOf(c: Context<AppEnv>): Promise<PreferenceChoice | null> {
  const form = await c.req.parseBody({ all: true }).catch(() => null);
  if (!form) return null;
  const list = (value: unknown) => (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter((v): v is string => typeof v === 'string');
  switch (form.action) {
    case 'save':
      return { action: 'save', shownTopicIds: list(form.shown), subscribedTopicIds: list(form.topic) };
    case 'unsubscribe-all':
    case 'resubscribe':
      return { action: form.action };
    default:
      return null;
  }
}

const notFoundAsNull = (error: unknown) => {
  if ((error as { code?: string }).code === 'NOT_FOUND') return null;
  throw error;
};

/**
 * The preference page of a broadcast's `{{ preferencesUrl }}` (no API key: the signed token is the authority, as for
 * `/u/{token}`). `GET /p/{token}` shows the organization's public topics with the contact's state and the channel's
 * subscription; `POST /p/{token}` saves the form (an HTML form, works without JavaScript). A token we did not sign, or
 * whose contact or broadcast is gone or of another organization, is 404 and changes nothing.
 */
export const preferenceRoutes = new Hono<AppEnv>()
  .use('/p/*', publicPageHeaders, limitPublicPage('preferences'))
  .get('/p/:token', async (c) => {
    const preferences = await findPreferences(c.get('deps'), c.req.param('token')).catch(notFoundAsNull);
    return preferences ? preferencePage(c, preferences, false) : linkNotValid(c);
  })
  .post('/p/:token', async (c) => {
    const choice = await choiceOf(c);
    if (!choice) {
      // the token first: a forged link is 404 whatever its body
      const preferences = await findPreferences(c.get('deps'), c.req.param('token')).catch(notFoundAsNull);
      if (!preferences) return linkNotValid(c);
      return c.html(publicPage('Not saved', html`<h1>Nothing was saved</h1><p>The form was incomplete; please go back and try again.</p>`, preferences.orgName), 400);
    }
    const preferences = await savePreferences(c.get('deps'), c.req.param('token'), choice).catch(notFoundAsNull);
    return preferences ? preferencePage(c, preferences, !preferences.isTest) : linkNotValid(c);
  });
