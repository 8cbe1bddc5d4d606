import { startPipeline, waitFor } from './harness.ts';

// Quiet hours for SMS broadcasts through the API and a real send-worker: a recipient inside the window in their own
// time waits as a `scheduled` message with a delayed job; one outside it gets the message at once.
jest.setTimeout(90_000);

let h: Awaited<ReturnType<typeof startPipeline>>;
beforeAll(async () => {
  h = await startPipeline({ BROADCAST_CHUNK_SIZE: '2' });
  await h.startWorker();
});
afterAll(() => h.close());

const hhmm = (hour: number) => `${String(hour % 24).padStart(2, '0')}:00`;

describe('quiet hours', () => {
  it('holds a recipient inside the window until it ends in their time zone, and sends to one outside it at once', async () => {
    const { api } = await h.testOrg();
    // a window from this UTC hour to two hours later: in UTC it is quiet now; in UTC+12 it is not
    const hour = new Date().getUTCHours();
    const quietHours = { start: hhmm(hour), end: hhmm(hour + 2) };
    const contacts = [
      { phone: '+14155550101', firstName: 'Ada', attributes: { timezone: 'UTC' } },
      { phone: '+14155550102', firstName: 'Bob', attributes: { timezone: 'Etc/GMT-12' } },
      { phone: '+14155550103', firstName: 'Cyd', attributes: { timezone: 'UTC' } },
    ];
    expect((await api.post('/v1/contacts/bulk', { contacts })).body.errors).toEqual([]);
    const template = (await api.post('/v1/templates', { name: 'Night', channelType: 'sms', body: 'Hi {{ contact.firstName }}' })).body;
    const created = await api.post('/v1/broadcasts', { name: 'Night owls', channelType: 'sms', templateId: template.id, quietHours });
    expect(created).toMatchObject({ status: 201, body: { quietHours } });
    expect((await api.post(`/v1/broadcasts/${created.body.id}/send`, {})).status).toBe(202);

    type Sent = { id: string; to: string; status: string; scheduledAt: string | null; deferredUntil: string | null; deferredReason: string | null };
    const byPhone = async () => {
      const lists = await Promise.all(contacts.map(async (c) => (await api.get(`/v1/messages?to=${encodeURIComponent(c.phone)}`)).body.data as Sent[]));
      return Object.fromEntries(lists.flat().map((m) => [m.to, m]));
    };
    const messages = await waitFor(
      async () => {
        const all = await byPhone();
        return ['sent', 'delivered'].includes(all['+14155550102']?.status ?? '') && all['+14155550101'] && all['+14155550103'] ? all : null;
      },
      30_000,
      'the message outside the window to go and the others to wait',
    );
    const windowEnd = new Date();
    windowEnd.setUTCHours(hour + 2, 0, 0, 0);
    for (const held of [messages['+14155550101']!, messages['+14155550103']!]) {
      expect(held).toMatchObject({ status: 'scheduled', scheduledAt: windowEnd.toISOString() });
      // it waits as a deferred message does, with its reason (the list and message.get alike)
      expect(held).toMatchObject({ deferredUntil: windowEnd.toISOString(), deferredReason: 'quiet_hours' });
      expect((await api.get(`/v1/messages/${held.id}`)).body).toMatchObject({ deferredUntil: windowEnd.toISOString(), deferredReason: 'quiet_hours' });
      const job = await h.deps.queues['sms-bulk'].getJob(held.id); // a broadcast's messages go in the bulk lane
      expect(await job?.getState()).toBe('delayed');
      expect(Math.abs(job!.timestamp + job!.delay - windowEnd.getTime())).toBeLessThan(5_000);
    }
    expect(messages['+14155550102']).toMatchObject({ deferredUntil: null, deferredReason: null });
    const broadcast = (await api.get(`/v1/broadcasts/${created.body.id}`)).body;
    expect(broadcast).toMatchObject({ status: 'sending', counts: { recipients: 3, waiting: 2 } });
  });

  it('refuses quiet hours on an email broadcast and a time that is not HH:MM', async () => {
    const { api } = await h.testOrg();
    const sms = (await api.post('/v1/templates', { name: 'T', channelType: 'sms', body: 'Hi' })).body;
    const email = (await api.post('/v1/templates', { name: 'E', channelType: 'email', subject: 'Hi', text: 'Hi' })).body;
    const onEmail = await api.post('/v1/broadcasts', { name: 'x', channelType: 'email', templateId: email.id, quietHours: { start: '21:00', end: '08:00' } });
    expect(onEmail).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST', message: expect.stringContaining('quietHours') } });
    const badTime = await api.post('/v1/broadcasts', { name: 'x', channelType: 'sms', templateId: sms.id, quietHours: { start: '9pm', end: '08:00' } });
    expect(badTime).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST', message: expect.stringContaining('HH:MM') } });
    const empty = await api.post('/v1/broadcasts', { name: 'x', channelType: 'sms', templateId: sms.id, quietHours: { start: '08:00', end: '08:00' } });
    expect(empty.status).toBe(400);
    expect((await api.get('/v1/broadcasts')).body.data).toEqual([]);
  });
});
