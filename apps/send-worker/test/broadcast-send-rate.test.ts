import { startPipeline, waitFor } from './harness.ts';

// sendRate: a broadcast's fan-out releases at most that many messages a minute, through the API and a real
// send-worker (the sandbox sends). The pace derives from the stored start and each recipient's position, so it holds
// across send-worker replicas and restarts (tests/fairness/send-rate.test.ts runs it over three minutes with two).
jest.setTimeout(120_000);

let h: Awaited<ReturnType<typeof startPipeline>>;
beforeAll(async () => {
  h = await startPipeline({ BROADCAST_CHUNK_SIZE: '50' });
  await h.startWorker();
});
afterAll(() => h.close());

describe('broadcast sendRate', () => {
  it('sends 300 recipients at 600 a minute: each due 100 ms after the one before, within 10 % of the rate over about 30 s', async () => {
    const { api, orgId } = await h.testOrg();
    const contacts = Array.from({ length: 300 }, (_, i) => ({ email: `r${i}@example.com` }));
    expect((await api.post('/v1/contacts/bulk', { contacts })).body.errors).toEqual([]);
    const template = (await api.post('/v1/templates', { name: 'Paced', channelType: 'email', subject: 'Hi', text: 'Hello {{ contact.email }}' })).body;
    const created = await api.post('/v1/broadcasts', { name: 'Warm-up', channelType: 'email', templateId: template.id, sendRate: 600 });
    expect(created).toMatchObject({ status: 201, body: { sendRate: 600 } });
    expect((await api.post(`/v1/broadcasts/${created.body.id}/send`, {})).status).toBe(202);

    await waitFor(async () => (await api.get(`/v1/broadcasts/${created.body.id}`)).body.status === 'sent', 90_000, 'the broadcast to be sent');
    // when each message reached the provider: its `sent` status entry
    const rows = await h.deps.db.$queryRaw<{ at: Date }[]>`
      SELECT e."createdAt" AS "at" FROM "MessageStatusEvent" e JOIN "Message" m ON m."id" = e."messageId"
      WHERE m."orgId" = ${orgId} AND e."status" = 'sent' AND e."activity" IS NULL ORDER BY e."createdAt"`;
    const times = rows.map((r) => r.at.getTime());
    expect(times).toHaveLength(300);
    const spanMinutes = (times.at(-1)! - times[0]!) / 60_000;
    const perMinute = (times.length - 1) / spanMinutes;
    console.log(`sendRate 600/min: ${times.length} messages over ${(spanMinutes * 60).toFixed(1)} s = ${perMinute.toFixed(0)}/min`);
    expect(perMinute).toBeGreaterThan(540);
    expect(perMinute).toBeLessThan(660);
    // the pace as scheduled, free of the machine's jitter: recipient n due (n - 1) * 100 ms after the first
    const due = await h.deps.db.$queryRaw<{ at: Date }[]>`
      SELECT m."scheduledAt" AS "at" FROM "Message" m WHERE m."orgId" = ${orgId} AND m."broadcastId" = ${created.body.id} ORDER BY m."scheduledAt"`;
    const first = due[0]!.at.getTime();
    expect(due.map((d) => d.at.getTime() - first)).toEqual(Array.from({ length: 300 }, (_, i) => i * 100));
  });

  it('shows a message held for the sendRate as deferred (send_rate) until it is due, and not once it went', async () => {
    const { api } = await h.testOrg();
    expect((await api.post('/v1/contacts/bulk', { contacts: [{ email: 'a@example.com' }, { email: 'b@example.com' }] })).body.errors).toEqual([]);
    const template = (await api.post('/v1/templates', { name: 'Slow', channelType: 'email', subject: 'Hi', text: 'Hello' })).body;
    const created = await api.post('/v1/broadcasts', { name: 'Slow', channelType: 'email', templateId: template.id, sendRate: 6 });
    expect((await api.post(`/v1/broadcasts/${created.body.id}/send`, {})).status).toBe(202);
    type Listed = { id: string; to: string; status: string; scheduledAt: string | null; deferredUntil: string | null; deferredReason: string | null };
    const list = async () => (await api.get(`/v1/messages?broadcastId=${created.body.id}`)).body.data as Listed[];
    const written = () => h.deps.db.message.count({ where: { broadcastId: created.body.id } });
    await waitFor(async () => (await written()) === 2, 30_000, 'the messages to be written');
    const held = await list();
    // the first is due 5 s after the start, the second 10 s after that (6 a minute)
    for (const m of held) {
      expect(m).toMatchObject({ status: 'scheduled', deferredReason: 'send_rate', deferredUntil: m.scheduledAt });
      expect((await api.get(`/v1/messages/${m.id}`)).body).toMatchObject({ deferredReason: 'send_rate', deferredUntil: m.scheduledAt });
    }
    const first = [...held].sort((a, b) => a.scheduledAt!.localeCompare(b.scheduledAt!))[0]!;
    const sent = await waitFor(
      // polled in the database: the API's own rate limit is not under test
      async () => {
        const m = await h.deps.db.message.findUniqueOrThrow({ where: { id: first.id } });
        return ['scheduled', 'queued', 'sending'].includes(m.status) ? null : m;
      },
      30_000,
      'the first message to go',
    );
    expect(sent).toMatchObject({ status: expect.stringMatching(/^(sent|delivered)$/), deferredUntil: null, deferredReason: null });
    expect((await api.get(`/v1/messages/${first.id}`)).body).toMatchObject({ deferredUntil: null, deferredReason: null });
  });

  it('refuses a sendRate that is not a positive whole number', async () => {
    const { api } = await h.testOrg();
    const template = (await api.post('/v1/templates', { name: 'T', channelType: 'email', subject: 'Hi', text: 'Hi' })).body;
    for (const sendRate of [0, -5, 1.5, 'fast']) {
      const res = await api.post('/v1/broadcasts', { name: 'Bad', channelType: 'email', templateId: template.id, sendRate });
      expect([res.status, res.body.message]).toEqual([400, expect.stringMatching(/^sendRate: /)]);
    }
  });
});
