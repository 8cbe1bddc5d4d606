// The Verifications page through HTTP (app.request) over real Postgres and Redis.
import { newId } from '@tidings/core';
import { createTestDeps } from '@tidings/testing';
import { createDashboard } from '../src/app.ts';
import { signedIn } from './signed-in.ts';

const deps = createTestDeps();
const app = createDashboard(deps);
afterAll(() => deps.close());

async function verification(orgId: string, fields: { channelType: string; country: string | null; approved: boolean; to: string }) {
  const now = new Date();
  await deps.db.verification.create({
    data: {
      id: newId('ver'),
      orgId,
      mode: 'live',
      channelType: fields.channelType,
      to: fields.to,
      status: fields.approved ? 'approved' : 'pending',
      codeLength: 6,
      codeSeed: 's',
      codeHash: 'h',
      expiresAt: new Date(now.getTime() + 600_000),
      sendAttempts: 1,
      sentAt: [now],
      messageIds: [],
      country: fields.country,
      prefix: null,
      approvedAt: fields.approved ? now : null,
    },
  });
}

it('shows recent verifications, conversion by channel and country, blocked SMS by reason, and saves the SMS countries', async () => {
  const { browser, orgId } = await signedIn(app, deps, 'owner');
  expect((await browser.get('/verifications')).html).toContain('No verifications yet');
  await verification(orgId, { channelType: 'sms', country: 'US', approved: true, to: '+14155550100' });
  await verification(orgId, { channelType: 'sms', country: 'US', approved: false, to: '+14155550101' });
  await verification(orgId, { channelType: 'email', country: null, approved: true, to: 'ada@example.com' });
  await deps.db.auditEvent.create({ data: { id: newId('aud'), orgId, action: 'sms.refused', targetId: 'country', actorType: 'apiKey', mode: 'live' } });

  const page = (await browser.get('/verifications')).html;
  expect(page).toMatch(/data-conversion="sms:US">\s*<td>SMS<\/td>\s*<td>US<\/td>\s*<td>2<\/td>\s*<td>1<\/td>\s*<td>50 %<\/td>/);
  expect(page).toMatch(/data-conversion="email:">[\s\S]*?<td>100 %<\/td>/);
  expect(page).toMatch(/data-refusal="country">\s*<td>Country not enabled<\/td>\s*<td>1<\/td>/);
  expect(page).toContain('+14155550101');
  expect(page).not.toContain('codeHash');

  expect(await browser.post('/verifications/sms-countries', { smsCountries: 'us, gb ca' })).toMatchObject({ status: 303, location: '/verifications' });
  expect((await deps.db.organization.findUniqueOrThrow({ where: { id: orgId } })).smsCountries).toEqual(['CA', 'GB', 'US']);
  const bad = await browser.post('/verifications/sms-countries', { smsCountries: 'USA' });
  expect(bad.status).toBe(400);
  expect(bad.html).toContain('ISO 3166');
  expect((await deps.db.organization.findUniqueOrThrow({ where: { id: orgId } })).smsCountries).toEqual(['CA', 'GB', 'US']);
});
