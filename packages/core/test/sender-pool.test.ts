import { createTestDeps, makeOrganization } from '@tidings/testing';
import { newId, sendMessages } from '../src/index.ts';

// An SMS without `from` takes its number from the organization's pool, whether its recipient is given by `to` or by
// `contactId` alone: the contact's phone decides the number as `to` would.
const deps = createTestDeps();
afterAll(() => deps.close());

async function orgWithPool() {
  const org = await makeOrganization(deps, { mode: 'live' });
  // numbers are unique across organizations: a fresh pair for each
  const digits = () => String(Math.floor(2_000_000 + Math.random() * 7_000_000));
  const numbers = { us: `+1628${digits()}`, gb: `+447400${digits().slice(1)}` };
  await deps.db.phoneNumber.createMany({
    data: [
      { id: newId('pn'), orgId: org.orgId, number: numbers.us, isDefault: true, type: 'local', country: 'US', provider: 'sandbox' },
      { id: newId('pn'), orgId: org.orgId, number: numbers.gb, isDefault: false, type: 'local', country: 'GB', provider: 'sandbox' },
    ],
  });
  return { ...org, numbers };
}

const contact = (orgId: string, phone: string) => deps.db.contact.create({ data: { id: newId('con'), orgId, phone } });

describe('the sender pool', () => {
  it('gives an SMS sent by contactId alone a number of its country, as one sent by to', async () => {
    const { orgId, numbers } = await orgWithPool();
    const british = await contact(orgId, '+447400123456');
    const { data, errors } = await sendMessages({ deps, orgId, mode: 'live' }, [
      { channelType: 'sms', contactId: british.id, body: 'By contact' },
      { channelType: 'sms', to: '+447400123457', body: 'By to' },
    ]);
    expect(errors).toEqual([]);
    expect(data.map((m) => [m?.to, m?.from])).toEqual([
      ['+447400123456', numbers.gb],
      ['+447400123457', numbers.gb],
    ]);
  });

  it('keeps the sticky sender for a contact sent to by contactId alone', async () => {
    const { orgId, numbers } = await orgWithPool();
    const american = await contact(orgId, '+14155550777');
    // the last number that sent to this recipient was the British one (a `from` given by hand)
    expect((await sendMessages({ deps, orgId, mode: 'live' }, [{ channelType: 'sms', to: american.phone!, from: numbers.gb, body: 'First' }])).errors).toEqual([]);
    const { data } = await sendMessages({ deps, orgId, mode: 'live' }, [{ channelType: 'sms', contactId: american.id, body: 'Again' }]);
    expect(data[0]).toMatchObject({ to: american.phone, from: numbers.gb });
  });

  it('still refuses an unknown contact as not found', async () => {
    const { orgId } = await orgWithPool();
    const { errors } = await sendMessages({ deps, orgId, mode: 'live' }, [{ channelType: 'sms', contactId: 'con_missing', body: 'Hi' }]);
    expect(errors).toEqual([{ index: 0, code: 'NOT_FOUND', message: 'Contact not found' }]);
  });
});
