import { newId } from '@tidings/core';
import { setupApi } from './setup.ts';

const t = setupApi({ RATE_LIMIT_PER_MINUTE: '1000' });
afterAll(() => t.close());

type Org = Awaited<ReturnType<typeof t.org>>;

/** A test organization with an email template and a segment, and a broadcast body using both. */
async function orgWithContent() {
  const org = await t.org({ mode: 'test' });
  const template = (await org.api.post('/v1/templates', { name: 'News', channelType: 'email', subject: 'Hi {{ contact.firstName }}', html: '<p>{{ month }}</p>' })).body;
  const sms = (await org.api.post('/v1/templates', { name: 'Short', channelType: 'sms', body: 'Hi {{ contact.firstName }}' })).body;
  const segment = (await org.api.post('/v1/segments', { name: 'Pros', criteria: { all: [{ field: 'attributes.plan', op: 'eq', value: 'pro' }] } })).body;
  const body = { name: 'November', channelType: 'email', templateId: template.id, segmentId: segment.id, variables: { month: 'November' }, tags: ['news'] };
  return { ...org, template, sms, segment, body };
}

const create = async (org: Org, body: object) => org.api.post('/v1/broadcasts', body);

describe('broadcast.create, get, list, delete', () => {
  it('creates a draft, reads it back with zero counts, lists it by status, deletes it', async () => {
    const org = await orgWithContent();
    const created = await create(org, org.body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ ...org.body, status: 'draft', templateVersion: null, scheduledAt: null, startedAt: null });
    expect(created.body.id).toMatch(/^brd_/);
    const got = await org.api.get(`/v1/broadcasts/${created.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body.counts).toEqual({ recipients: 0, waiting: 0, queued: 0, sent: 0, delivered: 0, failed: 0, bounced: 0, suppressed: 0, unsubscribed: 0, opened: 0, clicked: 0 });
    expect((await org.api.get('/v1/broadcasts?status=draft')).body.data.map((b: { id: string }) => b.id)).toEqual([created.body.id]);
    expect((await org.api.get('/v1/broadcasts?status=sent')).body.data).toEqual([]);
    const typo = await org.api.get('/v1/broadcasts?stauts=sent');
    expect(typo.status).toBe(400);
    expect(typo.body.message).toMatch(/stauts/);
    expect((await org.api.delete(`/v1/broadcasts/${created.body.id}`)).status).toBe(204);
    expect((await org.api.get(`/v1/broadcasts/${created.body.id}`)).status).toBe(404);
  });

  it('refuses bad input with a 400 naming the field, and creates nothing', async () => {
    const org = await orgWithContent();
    const cases: [object, RegExp][] = [
      [{ ...org.body, name: '' }, /^name:/],
      [{ ...org.body, channelType: 'fax' }, /^channelType:/],
      [{ ...org.body, templateId: org.sms.id }, /^templateId: the template is for sms, not email/],
      [{ ...org.body, templateVersion: 7 }, /^templateVersion: the template has no version 7/],
      [{ ...org.body, extra: true }, /extra: unknown field/],
      [{ ...org.body, variables: { a: { b: { c: { d: { e: { f: 1 } } } } } } }, /^variables\.a\.b\.c\.d\.e: nested deeper than 5 levels/],
    ];
    for (const [body, message] of cases) {
      const res = await create(org, body);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect(await t.deps.db.broadcast.count({ where: { orgId: org.orgId } })).toBe(0);
  });

  it('a live key needs a sender it may use (400), like message.send', async () => {
    const org = await t.org({ mode: 'live' });
    const template = (await org.api.post('/v1/templates', { name: 'N', channelType: 'email', subject: 's', text: 't' })).body;
    const res = await create(org, { name: 'x', channelType: 'email', templateId: template.id, from: 'news@unverified.example' });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^from: unverified.example is not a verified email domain/);
  });

  it("a test key neither sees nor acts on a live key's broadcast of the same organization (404), and it stays a draft", async () => {
    const live = await t.org({ mode: 'live' });
    await t.deps.db.emailDomain.create({ data: { id: newId('dom'), orgId: live.orgId, name: 'news.example.com', status: 'verified', provider: 'sandbox', records: [] } });
    const template = (await live.api.post('/v1/templates', { name: 'N', channelType: 'email', subject: 's', text: 't' })).body;
    const broadcast = (await create(live, { name: 'Real', channelType: 'email', templateId: template.id, from: 'news@news.example.com' })).body;
    expect(broadcast).toMatchObject({ mode: 'live', status: 'draft' });
    const test = t.client((await live.api.post('/v1/api-keys', { name: 'test', mode: 'test' })).body.key);
    const own = (await test.post('/v1/broadcasts', { name: 'Try', channelType: 'email', templateId: template.id })).body;
    expect(own.mode).toBe('test');

    expect((await test.get(`/v1/broadcasts/${broadcast.id}`)).status).toBe(404);
    expect((await test.post(`/v1/broadcasts/${broadcast.id}/send`, {})).status).toBe(404);
    expect((await test.post(`/v1/broadcasts/${broadcast.id}/cancel`)).status).toBe(404);
    expect((await test.delete(`/v1/broadcasts/${broadcast.id}`)).status).toBe(404);
    expect((await test.get('/v1/broadcasts')).body.data.map((b: { id: string }) => b.id)).toEqual([own.id]);
    expect((await live.api.get('/v1/broadcasts')).body.data.map((b: { id: string }) => b.id)).toEqual([broadcast.id]);
    expect((await live.api.get(`/v1/broadcasts/${broadcast.id}`)).body).toMatchObject({ status: 'draft', mode: 'live' });
  });

  it("another organization's broadcast, template or segment is 404, and nothing of theirs changes", async () => {
    const mine = await orgWithContent();
    const theirs = await orgWithContent();
    const their = (await create(theirs, theirs.body)).body;
    expect((await create(mine, { ...mine.body, templateId: theirs.template.id })).body).toEqual({ code: 'NOT_FOUND', message: 'Template not found' });
    expect((await create(mine, { ...mine.body, segmentId: theirs.segment.id })).body).toEqual({ code: 'NOT_FOUND', message: 'Segment not found' });
    for (const [method, path] of [
      ['GET', `/v1/broadcasts/${their.id}`],
      ['POST', `/v1/broadcasts/${their.id}/send`],
      ['POST', `/v1/broadcasts/${their.id}/cancel`],
      ['DELETE', `/v1/broadcasts/${their.id}`],
    ] as const) {
      const res = await mine.api.call(method, path);
      expect({ method, path, status: res.status, body: res.body }).toEqual({ method, path, status: 404, body: { code: 'NOT_FOUND', message: 'Broadcast not found' } });
    }
    expect((await mine.api.get('/v1/broadcasts')).body.data).toEqual([]);
    expect((await theirs.api.get(`/v1/broadcasts/${their.id}`)).body.status).toBe('draft');
  });
});

describe('broadcast.send, cancel and their conflicts', () => {
  it('a scheduled broadcast can be canceled; its start job is gone and it never starts', async () => {
    const org = await orgWithContent();
    const draft = (await create(org, org.body)).body;
    const scheduledAt = new Date(Date.now() + 3_600_000).toISOString();
    const sent = await org.api.post(`/v1/broadcasts/${draft.id}/send`, { scheduledAt });
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ status: 'scheduled', scheduledAt });
    const job = await t.deps.queues.broadcasts.getJob(draft.id);
    expect(job && (await job.getState())).toBe('delayed');

    const canceled = await org.api.post(`/v1/broadcasts/${draft.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.status).toBe('canceled');
    expect(canceled.body.canceledAt).not.toBeNull();
    expect(await t.deps.queues.broadcasts.getJob(draft.id)).toBeUndefined();
    const events = await t.deps.db.event.findMany({ where: { orgId: org.orgId }, select: { type: true } });
    expect(events.map((e) => e.type)).toEqual(['broadcast.canceled']);
    // a canceled, sent or sending broadcast cannot be sent, canceled or deleted again
    expect((await org.api.post(`/v1/broadcasts/${draft.id}/cancel`)).body).toEqual({
      code: 'CONFLICT',
      message: 'Only scheduled or sending broadcasts can be canceled; this one is canceled.',
    });
    expect((await org.api.post(`/v1/broadcasts/${draft.id}/send`)).status).toBe(409);
    expect((await org.api.delete(`/v1/broadcasts/${draft.id}`)).status).toBe(409);
  });

  it('sends now without a body (status sending, start job queued); a draft cannot be canceled; scheduledAt is bounded', async () => {
    const org = await orgWithContent();
    const draft = (await create(org, org.body)).body;
    expect((await org.api.post(`/v1/broadcasts/${draft.id}/cancel`)).status).toBe(409);
    const far = await org.api.post(`/v1/broadcasts/${draft.id}/send`, { scheduledAt: new Date(Date.now() + 40 * 86_400_000).toISOString() });
    expect(far.status).toBe(400);
    expect(far.body.message).toMatch(/^scheduledAt: must be at most 30 days ahead/);
    const past = await org.api.post(`/v1/broadcasts/${draft.id}/send`, { scheduledAt: '1999-01-01T00:00:00Z' });
    expect(past.status).toBe(400);
    expect(past.body.message).toBe('scheduledAt: 1999-01-01T00:00:00.000Z is in the past; give a time from now up to 30 days ahead');
    // an empty body declared as JSON (clients that always send the header) is no options
    const now = await org.api.call('POST', `/v1/broadcasts/${draft.id}/send`, '', { 'content-type': 'application/json' });
    expect(now.status).toBe(202);
    expect(now.body.status).toBe('sending');
    const job = await t.deps.queues.broadcasts.getJob(draft.id);
    expect(job?.data).toEqual({ broadcastId: draft.id, step: 'start' });
    await job?.remove(); // no worker in this file
  });
});
