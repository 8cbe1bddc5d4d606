import { startPipeline, waitFor } from './harness.ts';

// Whole broadcasts through a real worker: generous under a loaded machine; every wait inside has its own deadline.
jest.setTimeout(120_000);

let h: Awaited<ReturnType<typeof startPipeline>>;
beforeAll(async () => {
  // chunks of 2: the topic's members are selected in SQL and cut into chunks like a segment's
  // the waits below poll broadcast.get: the key's requests per minute are not what this test is about
  h = await startPipeline({ BROADCAST_CHUNK_SIZE: '2', PUBLIC_API_URL: 'https://api.tidings.test' });
  await h.startWorker();
});
afterAll(() => h.close());

type Api = Awaited<ReturnType<typeof h.liveOrg>>['api'];

const untilSent = (api: Api, id: string) =>
  waitFor(
    async () => {
      const b = (await api.get(`/v1/broadcasts/${id}`)).body;
      return b.status === 'sent' ? b : null;
    },
    60_000,
    `broadcast ${id} to be sent`,
  );

async function broadcast(api: Api, templateId: string, topicId: string, subject: string) {
  const b = (await api.post('/v1/broadcasts', { name: subject, channelType: 'email', templateId, topicId, variables: { subject } })).body;
  expect((await api.post(`/v1/broadcasts/${b.id}/send`, {})).status).toBe(202);
  return untilSent(api, b.id);
}

const recipientsOf = (subject: string) =>
  h.resend.state.emails
    .filter((e) => e.subject === subject)
    .map((e) => e.to[0]!)
    .sort();

describe('a broadcast to a topic', () => {
  it('reaches exactly its members (opt-out: all but those who left; opt-in: only those who joined); its one-click POST leaves other topics alone', async () => {
    const { api, orgId } = await h.liveOrg();
    const news = (await api.post('/v1/topics', { name: 'Product news', defaultSubscription: 'opt_out' })).body;
    const digest = (await api.post('/v1/topics', { name: 'Weekly digest', defaultSubscription: 'opt_in' })).body;
    const template = (
      await api.post('/v1/templates', {
        name: 'News',
        channelType: 'email',
        subject: '{{ subject }}',
        html: '<p>Hi</p><a href="{{ preferencesUrl }}">Preferences</a> <a href="{{ unsubscribeUrl }}">Unsubscribe</a>',
      })
    ).body;
    const created = await api.post('/v1/contacts/bulk', {
      contacts: [
        { email: 'ada@example.com' }, // never chose: in news (opt-out), not in digest (opt-in)
        { email: 'bob@example.com', topics: [{ topicId: news.id, subscribed: false }] }, // left news
        { email: 'cy@example.com', topics: [{ topicId: digest.id, subscribed: true }] }, // joined digest, in news by default
        { email: 'dee@example.com', emailSubscribed: false, topics: [{ topicId: digest.id, subscribed: true }] }, // unsubscribed from everything
        {
          email: 'eve@example.com',
          topics: [
            { topicId: news.id, subscribed: true },
            { topicId: digest.id, subscribed: false },
          ],
        },
        { phone: '+14155550123' }, // no address for the channel
      ],
    });
    expect(created.body.errors).toEqual([]);
    const idOf = Object.fromEntries(created.body.created.map((c: { id: string; email: string | null }) => [c.email, c.id]));

    const toNews = await broadcast(api, template.id, news.id, 'News of May');
    const toDigest = await broadcast(api, template.id, digest.id, 'Digest of May');
    expect(recipientsOf('News of May')).toEqual(['ada@example.com', 'cy@example.com', 'eve@example.com']);
    expect(recipientsOf('Digest of May')).toEqual(['cy@example.com']);
    // Dee is in both but unsubscribed from everything: a recipient counted suppressed, sent nothing
    expect(toNews.counts).toMatchObject({ recipients: 4, suppressed: 1 });
    expect(toDigest.counts).toMatchObject({ recipients: 2, suppressed: 1 });

    // Cy's one-click POST (RFC 8058) from the news email unsubscribes from news only
    const email = h.resend.state.emails.find((e) => e.subject === 'News of May' && e.to[0] === 'cy@example.com')!;
    const link = email.headers!['List-Unsubscribe']!.slice(1, -1);
    expect(email.html).toContain(link);
    const oneClick = await h.app.request(new URL(link).pathname, {
      method: 'POST',
      body: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(oneClick.status).toBe(200);
    const cy = (await api.get(`/v1/contacts/${idOf['cy@example.com']}`)).body;
    expect(cy.emailSubscribed).toBe(true);
    expect(cy.topics).toEqual(
      expect.arrayContaining([
        { topicId: news.id, subscribed: false },
        { topicId: digest.id, subscribed: true },
      ]),
    );
    expect(await h.deps.db.suppression.count({ where: { orgId, recipient: 'cy@example.com' } })).toBe(0);

    // its {{ preferencesUrl }} opens the preference page, which shows the new state
    const preferences = /href="(https:\/\/api\.tidings\.test\/p\/[^"]+)"/.exec(email.html!)![1]!;
    const page = await h.app.request(new URL(preferences).pathname);
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toMatch(new RegExp(`value="${news.id}"> Product news`));
    expect(text).toMatch(new RegExp(`value="${digest.id}" checked> Weekly digest`));

    // the next news goes to Ada and Eve only; the digest still reaches Cy
    await broadcast(api, template.id, news.id, 'News of June');
    await broadcast(api, template.id, digest.id, 'Digest of June');
    expect(recipientsOf('News of June')).toEqual(['ada@example.com', 'eve@example.com']);
    expect(recipientsOf('Digest of June')).toEqual(['cy@example.com']);
  });

  it('a broadcast whose topic was deleted before it started is canceled; the broadcast keeps its topicId', async () => {
    const { api } = await h.liveOrg();
    const topic = (await api.post('/v1/topics', { name: 'Gone soon', defaultSubscription: 'opt_out' })).body;
    const template = (await api.post('/v1/templates', { name: 'T', channelType: 'email', subject: 'S', text: 'T' })).body;
    await api.post('/v1/contacts', { email: 'ada@example.com' });
    const b = (await api.post('/v1/broadcasts', { name: 'B', channelType: 'email', templateId: template.id, topicId: topic.id })).body;
    expect((await api.delete(`/v1/topics/${topic.id}`)).status).toBe(204);
    await api.post(`/v1/broadcasts/${b.id}/send`, {});
    const canceled = await waitFor(
      async () => {
        const got = (await api.get(`/v1/broadcasts/${b.id}`)).body;
        return got.status === 'canceled' ? got : null;
      },
      60_000,
      'the broadcast to be canceled',
    );
    expect(canceled).toMatchObject({ topicId: topic.id, counts: { recipients: 0 } });
  });
});
