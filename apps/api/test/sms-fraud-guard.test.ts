import { newId } from '@tidings/core';
import { setupApi } from './setup.ts';

// The SMS fraud guard in front of every live SMS: allowed countries (default: those of the organization's numbers),
// refused number types, and a velocity limit per destination prefix that tightens where codes go unapproved.
jest.setTimeout(60_000);
const t = setupApi({ RATE_LIMIT_PER_MINUTE: '1000000', SMS_PREFIX_LIMIT_PER_HOUR: '20' });
afterAll(() => t.close());

/** A live organization with one US number (the sandbox provider stands in for a live one: nothing leaves). */
async function liveOrgWithUsNumber() {
  const org = await t.org({ mode: 'live' });
  const number = `+1415555${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`;
  await t.deps.db.phoneNumber.create({ data: { id: newId('pn'), orgId: org.orgId, number, type: 'local', provider: 'sandbox', isDefault: true } });
  return org;
}

const refusals = (orgId: string) => t.deps.db.auditEvent.findMany({ where: { orgId, action: 'sms.refused' }, orderBy: { createdAt: 'asc' } });

it("allows the countries of the organization's numbers until smsCountries says otherwise; a refused country is a 400 and an audit row", async () => {
  const { api, orgId } = await liveOrgWithUsNumber();
  expect((await api.get('/v1/organization')).body).toMatchObject({ id: orgId, smsCountries: ['US'] });
  expect((await api.get('/v1/organization?smsCountry=US')).status).toBe(400);
  const uk = await api.post('/v1/verifications', { channelType: 'sms', to: '+447400123456' });
  expect(uk.status).toBe(400);
  expect(uk.body.message).toMatch(/^to: country GB is not enabled for SMS/);
  const plain = await api.post('/v1/messages', { channelType: 'sms', to: '+447400123456', body: 'hello' });
  expect(plain.status).toBe(400);
  expect(await t.deps.db.verification.count({ where: { orgId } })).toBe(0);
  expect(await t.deps.db.message.count({ where: { orgId } })).toBe(0);
  expect((await refusals(orgId)).map((r) => r.targetId)).toEqual(['country', 'country']);

  const updated = await api.patch('/v1/organization', { smsCountries: ['US', 'GB', 'GB'] });
  expect(updated.body.smsCountries).toEqual(['GB', 'US']);
  expect((await api.post('/v1/verifications', { channelType: 'sms', to: '+447400123456' })).status).toBe(201);
  expect((await api.patch('/v1/organization', { smsCountries: ['usa'] })).status).toBe(400);
});

it('refuses premium-rate and unknown numbers, even in an allowed country', async () => {
  const { api, orgId } = await liveOrgWithUsNumber();
  const premium = await api.post('/v1/verifications', { channelType: 'sms', to: '+19005550123' });
  expect(premium.status).toBe(400);
  expect(premium.body.message).toMatch(/premium-rate/);
  await api.patch('/v1/organization', { smsCountries: ['US', 'GB'] });
  // a number in no numbering plan (here the UK's drama range) is refused before it reaches the guard
  const unknown = await api.post('/v1/messages', { channelType: 'sms', to: '+447700900123', body: 'hi' });
  expect(unknown.status).toBe(400);
  expect(unknown.body.message).toMatch(/^to: /);
  expect((await refusals(orgId)).map((r) => r.targetId)).toEqual(['number_type']);
});

it('a pumping burst to one prefix is 429 with Retry-After, tighter where codes go unapproved, while a normal prefix keeps working', async () => {
  const { api, orgId } = await liveOrgWithUsNumber();
  // twenty codes to +1 212 go through, the next is refused; the batch counts each
  const burst = Array.from({ length: 21 }, (_, i) => ({ channelType: 'sms', to: `+1212555${String(1000 + i)}`, body: 'x' }));
  const batch = await api.post('/v1/messages/batch', { messages: burst });
  expect(batch.body.errors).toEqual([{ index: 20, code: 'RATE_LIMITED', message: expect.stringMatching(/^to: too many SMS to \+1 212 this hour/) }]);
  const more = await api.post('/v1/messages', { channelType: 'sms', to: '+12125552000', body: 'x' });
  expect({ status: more.status, code: more.body.code }).toEqual({ status: 429, code: 'RATE_LIMITED' });
  expect(Number(more.headers.get('retry-after'))).toBeGreaterThan(3000);
  expect((await api.post('/v1/messages', { channelType: 'sms', to: '+14155550100', body: 'x' })).status).toBe(202);

  // +1 646: ten codes sent there today, none approved; its limit is a tenth (2) where +1 415 keeps twenty
  const dayAgo = new Date(Date.now() - 3_600_000);
  await t.deps.db.verification.createMany({
    data: Array.from({ length: 10 }, (_, i) => ({
      id: newId('ver'),
      orgId,
      mode: 'live',
      channelType: 'sms',
      to: `+1646555${1000 + i}`,
      status: 'expired',
      codeLength: 6,
      codeSeed: 's',
      codeHash: 'h',
      expiresAt: dayAgo,
      sendAttempts: 1,
      sentAt: [dayAgo],
      messageIds: [],
      country: 'US',
      prefix: '+1 646',
      createdAt: dayAgo,
    })),
  });
  expect((await api.post('/v1/verifications', { channelType: 'sms', to: '+16465552001' })).status).toBe(201);
  expect((await api.post('/v1/verifications', { channelType: 'sms', to: '+16465552002' })).status).toBe(201);
  const pumped = await api.post('/v1/verifications', { channelType: 'sms', to: '+16465552003' });
  expect({ status: pumped.status, code: pumped.body.code }).toEqual({ status: 429, code: 'RATE_LIMITED' });
  expect(pumped.body.message).toMatch(/rarely approved/);
  expect(Number(pumped.headers.get('retry-after'))).toBeGreaterThan(0);
  expect((await api.post('/v1/verifications', { channelType: 'sms', to: '+14155550101' })).status).toBe(201);
  expect((await refusals(orgId)).map((r) => r.targetId)).toEqual(['prefix_velocity', 'prefix_velocity', 'prefix_velocity']);
});

it('test keys send through the sandbox, which costs nothing: the guard lets them pass', async () => {
  const { api } = await t.org({ mode: 'test' });
  expect((await api.post('/v1/verifications', { channelType: 'sms', to: '+447400123456' })).status).toBe(201);
});
