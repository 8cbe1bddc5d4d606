// The Broadcasts pages through HTTP (app.request) over real Postgres and Redis; sending is followed by the browser
// test (browser-broadcasts), which runs a real send-worker.
import { createContact, createSegment, createTemplate, expandBroadcastChunk, getBroadcast, previewBroadcast, recordTrackingHit, startBroadcast } from '@tidings/core';
import { createTestDeps } from '@tidings/testing';
import { createDashboard } from '../src/app.ts';
import { signedIn } from './signed-in.ts';

const deps = createTestDeps();
const app = createDashboard(deps);
afterAll(() => deps.close());

const HOSTILE = '<script>alert(1)</script>';
const owner = () => signedIn(app, deps, 'owner');

/** A template, a segment of paying customers and two contacts in `orgId` (one paying, one not). */
async function setUp(orgId: string, name = 'November news') {
  const template = await createTemplate(deps, orgId, {
    name,
    channelType: 'email',
    subject: 'News for {{ contact.firstName }}',
    html: '<p>Hi {{ contact.firstName }}, this is {{ month }}.</p><a href="{{ unsubscribeUrl }}">Unsubscribe</a>',
  });
  const segment = await createSegment(deps, orgId, { name: 'Paying', criteria: { all: [{ field: 'attributes.plan', op: 'eq', value: 'pro' }] } });
  const ada = await createContact(deps, orgId, { email: 'ada@example.com', firstName: 'Ada', attributes: { plan: 'pro' }, emailSubscribed: true, smsSubscribed: true });
  await createContact(deps, orgId, { email: 'bob@example.com', firstName: 'Bob', attributes: { plan: 'free' }, emailSubscribed: true, smsSubscribed: true });
  return { template, segment, ada };
}

/** Creates a draft through the form and returns its id. */
async function createDraft(browser: Awaited<ReturnType<typeof owner>>['browser'], form: Record<string, string>) {
  const res = await browser.post('/broadcasts', { name: 'November', mode: 'test', variables: '{"month": "November"}', ...form });
  expect(res.status).toBe(303);
  expect(res.location).toMatch(/^\/broadcasts\/brd_/);
  return res.location!.split('/')[2]!;
}

describe('broadcasts pages', () => {
  it('create a draft from a template and a segment, and preview it for one of its contacts', async () => {
    const { browser, orgId } = await owner();
    expect((await browser.get('/broadcasts')).html).toContain('create a template</a> first');
    const { template, segment, ada } = await setUp(orgId);
    const list = await browser.get('/broadcasts');
    expect(list.html).toContain('No broadcasts yet');
    expect(list.html).toContain(`<option value="${template.id}">November news (Email)</option>`);
    expect(list.html).toContain(`<option value="${segment.id}">Segment: Paying</option>`);

    const id = await createDraft(browser, { templateId: template.id, segmentId: segment.id });
    const broadcast = await getBroadcast(deps, orgId, id);
    expect(broadcast).toMatchObject({ status: 'draft', mode: 'test', channelType: 'email', templateId: template.id, segmentId: segment.id, variables: { month: 'November' } });
    const detail = await browser.get(`/broadcasts/${id}`);
    expect(detail.html).toContain('Draft created');
    expect(detail.html).toContain('What Ada · ada@example.com gets');
    expect(detail.html).toContain('<strong>News for Ada</strong>');
    expect(detail.html).toMatch(
      /srcdoc="&lt;base target=&quot;_blank&quot;&gt;&lt;p&gt;Hi Ada, this is November.&lt;\/p&gt;&lt;a href=&quot;http[^"]*\/u\/[^"]+&quot;&gt;Unsubscribe/,
    );
    expect(detail.html).not.toContain('bob@example.com'); // not in the segment
    expect((await browser.get(`/broadcasts/${id}?contact=${ada.id}`)).status).toBe(200);
    expect((await browser.get('/broadcasts')).html).toContain(`href="/broadcasts/${id}"`);
  });

  it('an SMS broadcast takes its channel from the template, and its preview counts the segments', async () => {
    const { browser, orgId } = await owner();
    const template = await createTemplate(deps, orgId, { name: 'sms-news', channelType: 'sms', body: 'Hi {{ contact.firstName }}, {{ month }} deals are live.' });
    await createContact(deps, orgId, { phone: '+14155550123', firstName: 'Ada', emailSubscribed: true, smsSubscribed: true });
    const id = await createDraft(browser, { templateId: template.id });
    expect(await getBroadcast(deps, orgId, id)).toMatchObject({ channelType: 'sms', status: 'draft' });
    const detail = await browser.get(`/broadcasts/${id}`);
    expect(detail.html).toContain('What Ada · +14155550123 gets');
    expect(detail.html).toContain('<p class="sms-bubble">Hi Ada, November deals are live.</p>');
    expect(detail.html).toContain('1 segment · GSM-7');
  });

  it('refuses bad input next to the field, and keeps what was typed', async () => {
    const { browser, orgId } = await owner();
    const { template } = await setUp(orgId);
    const noName = await browser.post('/broadcasts', { name: '', templateId: template.id, mode: 'test' });
    expect(noName.status).toBe(400);
    expect(noName.html).toContain('Give the broadcast a name.');
    const badJson = await browser.post('/broadcasts', { name: 'November', templateId: template.id, mode: 'test', variables: '{oops' });
    expect(badJson.status).toBe(400);
    expect(badJson.html).toContain('Not valid JSON.');
    expect(badJson.html).toContain('value="November"');
    const id = await createDraft(browser, { templateId: template.id });
    const badTime = await browser.post(`/broadcasts/${id}/send`, { scheduledAt: 'tomorrow' });
    expect(badTime.status).toBe(400);
    expect(badTime.html).toContain('Give a date and time.');
    expect((await getBroadcast(deps, orgId, id)).status).toBe('draft');
    expect(await deps.db.broadcast.count({ where: { orgId } })).toBe(1);
  });

  it('schedule, then cancel; a draft can be deleted', async () => {
    const { browser, orgId } = await owner();
    const { template } = await setUp(orgId);
    const id = await createDraft(browser, { templateId: template.id });
    const at = new Date(Date.now() + 86_400_000).toISOString().slice(0, 16);
    const scheduled = await browser.post(`/broadcasts/${id}/send`, { scheduledAt: at });
    expect(scheduled.status).toBe(303);
    expect((await browser.get(scheduled.location!)).html).toContain('Scheduled: sending starts');
    expect(await getBroadcast(deps, orgId, id)).toMatchObject({ status: 'scheduled', scheduledAt: `${at}:00.000Z` });
    const page = await browser.get(`/broadcasts/${id}`);
    expect(page.html).toContain('data-refresh=""');
    expect(page.html).toContain('Cancel broadcast…');
    expect((await browser.get(`/broadcasts/${id}/cancel`)).html).toContain('Cancel this broadcast');
    expect((await browser.post(`/broadcasts/${id}/cancel`)).status).toBe(303);
    expect((await getBroadcast(deps, orgId, id)).status).toBe('canceled');
    expect((await browser.get(`/broadcasts/${id}`)).html).not.toContain('data-refresh');

    const draft = await createDraft(browser, { templateId: template.id });
    expect((await browser.post(`/broadcasts/${draft}/delete`)).status).toBe(303);
    expect(await deps.db.broadcast.count({ where: { id: draft } })).toBe(0);
    expect((await browser.post(`/broadcasts/${id}/delete`)).status).toBe(409); // only drafts
  });

  it("another organization's broadcast, template or contact is not found", async () => {
    const other = await owner();
    const theirs = await setUp(other.orgId);
    const foreign = await createDraft(other.browser, { templateId: theirs.template.id });
    const { browser, orgId } = await owner();
    const mine = await setUp(orgId);
    const myDraft = await createDraft(browser, { templateId: mine.template.id });
    for (const path of ['', '/cancel', '/delete']) expect((await browser.get(`/broadcasts/${foreign}${path}`)).status).toBe(404);
    for (const path of ['/send', '/cancel', '/delete']) expect((await browser.post(`/broadcasts/${foreign}${path}`)).status).toBe(404);
    expect((await browser.post('/broadcasts', { name: 'x', templateId: theirs.template.id, mode: 'test' })).status).toBe(404);
    expect((await browser.post('/broadcasts', { name: 'x', templateId: mine.template.id, segmentId: theirs.segment.id, mode: 'test' })).status).toBe(404);
    // another organization's contact is not offered, and naming it previews one of this organization's instead
    const preview = await browser.get(`/broadcasts/${myDraft}?contact=${theirs.ada.id}`);
    expect(preview.html).not.toContain(theirs.ada.id);
    // and the core's preview refuses it, as it refuses another organization's broadcast
    await expect(previewBroadcast(deps, orgId, myDraft, theirs.ada.id)).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Contact not found' });
    await expect(previewBroadcast(deps, orgId, foreign, mine.ada.id)).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'Broadcast not found' });
    expect(await getBroadcast(deps, other.orgId, foreign)).toMatchObject({ status: 'draft' });
    expect(await deps.db.broadcast.count({ where: { orgId } })).toBe(1);
  });

  it('needs the CSRF token, and a manager: members read but change nothing', async () => {
    const { browser, orgId } = await owner();
    const { template } = await setUp(orgId);
    const id = await createDraft(browser, { templateId: template.id });
    expect((await browser.send('POST', `/broadcasts/${id}/send`, {})).status).toBe(403);
    expect((await browser.send('POST', '/broadcasts', { name: 'x', templateId: template.id })).status).toBe(403);
    const member = await signedIn(app, deps, 'member', orgId);
    const detail = await member.browser.get(`/broadcasts/${id}`);
    expect(detail.status).toBe(200);
    expect(detail.html).not.toContain('Send now');
    expect((await member.browser.get('/broadcasts')).html).not.toContain('Create draft');
    expect((await member.browser.post('/broadcasts', { name: 'x', templateId: template.id, mode: 'test' })).status).toBe(403);
    for (const path of ['/send', '/cancel', '/delete']) expect((await member.browser.post(`/broadcasts/${id}${path}`)).status).toBe(403);
    expect(await getBroadcast(deps, orgId, id)).toMatchObject({ status: 'draft' });
    expect(await deps.db.broadcast.count({ where: { orgId } })).toBe(1);
  });

  it('escapes names, variables and contact fields everywhere', async () => {
    const { browser, orgId } = await owner();
    const { template } = await setUp(orgId, HOSTILE);
    await createContact(deps, orgId, { email: 'eve@example.com', firstName: HOSTILE, lastName: HOSTILE, emailSubscribed: true, smsSubscribed: true });
    const id = await createDraft(browser, { name: HOSTILE, templateId: template.id, variables: JSON.stringify({ month: HOSTILE }) });
    const eve = await deps.db.contact.findFirstOrThrow({ where: { orgId, email: 'eve@example.com' } });
    const pages = await Promise.all([
      browser.get('/broadcasts'),
      browser.get(`/broadcasts/${id}?contact=${eve.id}`),
      browser.get(`/broadcasts/${id}/delete`),
      browser.post('/broadcasts', { name: HOSTILE, templateId: template.id, mode: 'test', variables: '{bad' }),
    ]);
    for (const page of pages) {
      expect(page.html).not.toContain(HOSTILE);
      expect(page.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    }
    expect(pages[1]!.html).toMatch(/<iframe class="email-frame" sandbox="allow-popups allow-popups-to-escape-sandbox" srcdoc="/);
  });

  it('a broadcast whose messages failed says so in its badge, with the reasons and a way to retry them', async () => {
    const { browser, orgId } = await owner();
    const { template, segment } = await setUp(orgId, 'Needs a city');
    await createContact(deps, orgId, { email: 'cyd@example.com', firstName: 'Cyd', attributes: { plan: 'pro', city: 'Rome' }, emailSubscribed: true, smsSubscribed: true });
    const cityTemplate = await createTemplate(deps, orgId, { name: 'City', channelType: 'email', subject: 'Hi', html: '<p>{{ contact.attributes.city }}</p>' });
    const id = await createDraft(browser, { templateId: cityTemplate.id, segmentId: segment.id });
    expect(template.id).not.toBe(cityTemplate.id);
    expect((await browser.post(`/broadcasts/${id}/send`, {})).status).toBe(303);
    // the fan-out by hand (no send-worker here): Ada has no city, so her message fails to render
    expect(await startBroadcast(deps, id)).toEqual({ kind: 'done', outcome: 'started' });
    await expandBroadcastChunk(deps, id, 0);
    expect((await getBroadcast(deps, orgId, id)).failedReasons).toEqual({ RENDER_FAILED: 1 });
    const detail = await browser.get(`/broadcasts/${id}`);
    expect(detail.html).toMatch(/<span class="badge status-pending">sending, 1 failed<\/span>/);
    expect(detail.html).toContain('Failed: 1 RENDER_FAILED');
    expect(detail.html).toContain(`href="/broadcasts/${id}/retry-failed"`);
    expect((await browser.get('/broadcasts')).html).toContain('sending, 1 failed');
  });

  it("shows a sending broadcast's estimated finish, at its sendRate", async () => {
    const { browser, orgId } = await owner();
    const { template, segment } = await setUp(orgId, 'Slow news');
    const id = await createDraft(browser, { templateId: template.id, segmentId: segment.id });
    await deps.db.broadcast.update({ where: { id }, data: { sendRate: 1 } }); // one a minute: the estimate is a minute per message left
    expect((await browser.get(`/broadcasts/${id}`)).html).not.toContain('Estimated finish');
    expect((await browser.post(`/broadcasts/${id}/send`, {})).status).toBe(303);
    expect(await startBroadcast(deps, id)).toEqual({ kind: 'done', outcome: 'started' });
    const before = Date.now();
    const detail = await browser.get(`/broadcasts/${id}`);
    const shown = detail.html.match(/<dt>Estimated finish<\/dt><dd><time datetime="([^"]+)"/)?.[1];
    expect(shown).toEqual(expect.any(String));
    // one recipient (Ada) left at one a minute
    expect(Date.parse(shown!) - before).toBeGreaterThan(50_000);
    expect(Date.parse(shown!) - before).toBeLessThan(70_000);
  });

  it('shows the links table of a sent broadcast: each clicked link with its clicks and unique clicks', async () => {
    const { browser, orgId } = await owner();
    const { template, segment } = await setUp(orgId, 'Links news');
    const id = await createDraft(browser, { templateId: template.id, segmentId: segment.id });
    expect((await browser.get(`/broadcasts/${id}`)).html).not.toContain('id="links"'); // a draft has none
    expect((await browser.post(`/broadcasts/${id}/send`, {})).status).toBe(303);
    expect(await startBroadcast(deps, id)).toEqual({ kind: 'done', outcome: 'started' });
    await expandBroadcastChunk(deps, id, 0);
    expect((await browser.get(`/broadcasts/${id}`)).html).toContain('No clicks yet');
    const [message] = await deps.db.message.findMany({ where: { orgId, broadcastId: id }, select: { id: true } });
    await recordTrackingHit(deps, { kind: 'click', messageId: message!.id, url: 'https://example.com/a?x=<b>' }, null);
    const links = (await browser.get(`/broadcasts/${id}`)).html;
    const row = links.slice(links.indexOf('data-link="https://example.com/a?x=&lt;b&gt;"')).split('</tr>')[0]!;
    expect(row).toMatch(/<td>1<\/td><td>1<\/td>$/);
  });
});
