// The Templates pages through HTTP (app.request) over real Postgres and Redis, rendering on the real render threads.
import { createTemplate, getTemplate, previewTemplateChanges } from '@tidings/core';
import { createTestDeps } from '@tidings/testing';
import { createDashboard } from '../src/app.ts';
import { signedIn } from './signed-in.ts';

const deps = createTestDeps();
const app = createDashboard(deps);
afterAll(() => deps.close());

const owner = () => signedIn(app, deps, 'owner');
const HOSTILE = '<script>alert(1)</script>';

const emailTemplate = (orgId: string, name = 'welcome') =>
  createTemplate(deps, orgId, { name, channelType: 'email', subject: 'Hi {{ firstName }}', html: '<p>Hello {{ firstName }}</p>', text: 'Hello {{ firstName }}' });

/** The editor's fields of `template` as the page posts them, with `changes`. */
const editorForm = (changes: Record<string, string> = {}) => ({
  name: 'welcome',
  subject: 'Hi {{ firstName }}',
  html: '<p>Hello {{ firstName }}</p>',
  text: 'Hello {{ firstName }}',
  replyTo: '',
  variables: '{"firstName": "Ada"}',
  ...changes,
});

describe('templates pages', () => {
  it('create: starts with sample content and opens the editor, with a preview rendered by the core', async () => {
    const { browser, orgId } = await owner();
    expect((await browser.get('/templates')).html).toContain('No templates yet');
    const created = await browser.post('/templates', { name: 'sign-in-code', channelType: 'sms' });
    expect(created.status).toBe(303);
    expect(created.location).toMatch(/^\/templates\/tpl_/);
    const editor = await browser.get(created.location!);
    expect(editor.html).toContain('Template created with sample content');
    expect(editor.html).toContain('<p class="sms-bubble">Hello [firstName], …</p>');
    expect(editor.html).toMatch(/1 segment · UCS-2/); // the ellipsis is not GSM-7
    const list = await browser.get('/templates');
    expect(list.html).toContain(`href="${created.location}"`);
    expect(await deps.db.template.count({ where: { orgId } })).toBe(1);
    expect((await browser.post('/templates', { name: ' ', channelType: 'sms' })).status).toBe(400);
  });

  it('preview of a broadcast template fills contact.* from the newest contact, or ?contactId=, or a sample one', async () => {
    const { browser, orgId } = await owner();
    const template = await createTemplate(deps, orgId, {
      name: 'news',
      channelType: 'email',
      subject: 'News for {{ contact.firstName }}',
      text: 'Hi {{ contact.firstName }}, {{ plan }}',
    });
    const sample = await browser.get(`/templates/${template.id}`);
    expect(sample.html).not.toContain(': missing');
    expect(sample.html).toContain('Hi Ada, [plan]');
    const grace = await deps.db.contact.create({ data: { id: 'con_grace_preview', orgId, email: 'grace@example.com', firstName: 'Grace' } });
    await deps.db.contact.create({ data: { id: 'con_alan_preview', orgId, email: 'alan@example.com', firstName: 'Alan', createdAt: new Date(Date.now() - 60_000) } });
    expect((await browser.get(`/templates/${template.id}`)).html).toContain('Hi Grace, [plan]');
    expect((await browser.get(`/templates/${template.id}?contactId=con_alan_preview`)).html).toContain('Hi Alan, [plan]');
    expect(grace.id).toBe('con_grace_preview');
  });

  it('preview of unsaved changes: rendered with the sample variables, nothing written', async () => {
    const { browser, orgId } = await owner();
    const template = await emailTemplate(orgId);
    const res = await browser.post(`/templates/${template.id}/preview`, editorForm({ subject: 'Welcome aboard, {{ firstName }}' }));
    expect(res.status).toBe(200);
    expect(res.html).toContain('<strong>Welcome aboard, Ada</strong>');
    expect(res.html).toContain('srcdoc="&lt;base target=&quot;_blank&quot;&gt;&lt;p&gt;Hello Ada&lt;/p&gt;"');
    expect(res.html).toContain('value="Welcome aboard, {{ firstName }}"'); // the typed content stays in the form
    expect((await getTemplate(deps, orgId, template.id, {})).version).toBe(1);

    const missing = await browser.post(`/templates/${template.id}/preview`, editorForm({ variables: '{}' }));
    expect(missing.status).toBe(400);
    expect(missing.html).toMatch(/class="form-error" role="alert">[^<]*firstName/);
    const broken = await browser.post(`/templates/${template.id}/preview`, editorForm({ variables: '{not json' }));
    expect(broken.status).toBe(400);
    expect(broken.html).toContain('Sample variables: not valid JSON.');
    const badPart = await browser.post(`/templates/${template.id}/preview`, editorForm({ html: '<p>{% if %}</p>' }));
    expect(badPart.status).toBe(400);
    expect(badPart.html).toMatch(/html: not a valid template/);
  });

  it('save writes a new version; history shows the changes between two versions; unchanged saves nothing', async () => {
    const { browser, orgId } = await owner();
    const template = await emailTemplate(orgId);
    const saved = await browser.post(`/templates/${template.id}`, editorForm({ html: '<p>Hello {{ firstName }}</p>\n<p>Welcome to Acme.</p>' }));
    expect(saved.status).toBe(303);
    expect((await browser.get(saved.location!)).html).toContain('Saved as version 2.');
    expect((await getTemplate(deps, orgId, template.id, {})).html).toBe('<p>Hello {{ firstName }}</p>\n<p>Welcome to Acme.</p>');

    const again = await browser.post(`/templates/${template.id}`, editorForm({ html: '<p>Hello {{ firstName }}</p>\n<p>Welcome to Acme.</p>' }));
    expect((await browser.get(again.location!)).html).toContain('Nothing changed: version 2 is still the latest.');
    expect((await getTemplate(deps, orgId, template.id, {})).version).toBe(2);

    const history = await browser.get(`/templates/${template.id}/versions`);
    expect(history.status).toBe(200);
    expect(history.html).toContain('Changes from version 1 to version 2');
    expect(history.html).toContain('<span>&lt;p&gt;Hello {{ firstName }}&lt;/p&gt;\n</span><ins>&lt;p&gt;Welcome to Acme.&lt;/p&gt;\n</ins>');
    expect(history.html).not.toContain('<del>');
    expect(history.html).toContain('data-version="1"');
    expect(history.html).not.toContain('data-part="Subject"');

    const refused = await browser.post(`/templates/${template.id}`, editorForm({ subject: '' }));
    expect(refused.status).toBe(400);
    expect(refused.html).toMatch(/<small id="subject-help">[^<]+<\/small>/);
  });

  it('delete is soft: the template leaves the list and its editor, and stays in the database', async () => {
    const { browser, orgId } = await owner();
    const template = await emailTemplate(orgId, 'old-newsletter');
    expect((await browser.get(`/templates/${template.id}/delete`)).html).toContain('Delete this template');
    const deleted = await browser.post(`/templates/${template.id}/delete`);
    expect(deleted.status).toBe(303);
    expect((await browser.get('/templates')).html).toContain('The template “old-newsletter” is deleted.');
    expect((await browser.get(`/templates/${template.id}`)).status).toBe(404);
    expect((await getTemplate(deps, orgId, template.id, { includeDeleted: true })).deletedAt).not.toBeNull();
  });

  it("another organization's template is not found on every page and action", async () => {
    const other = await owner();
    const foreign = await emailTemplate(other.orgId);
    const { browser, orgId: mine } = await owner();
    for (const path of ['', '/versions', '/versions?from=1&to=1', '/delete']) expect((await browser.get(`/templates/${foreign.id}${path}`)).status).toBe(404);
    for (const path of ['', '/preview', '/delete']) expect((await browser.post(`/templates/${foreign.id}${path}`, editorForm({ name: 'Mine now' }))).status).toBe(404);
    await expect(previewTemplateChanges(deps, mine, foreign.id, { changes: { subject: 'x' }, variables: {} })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const after = await getTemplate(deps, other.orgId, foreign.id, {});
    expect(after).toMatchObject({ name: 'welcome', version: 1, deletedAt: null });
  });

  it('needs the CSRF token, and a manager: members read but change nothing', async () => {
    const { browser, orgId } = await owner();
    const template = await emailTemplate(orgId);
    expect((await browser.send('POST', `/templates/${template.id}`, editorForm({ name: 'x' }))).status).toBe(403);
    expect((await browser.send('POST', '/templates', { name: 'x', channelType: 'sms' })).status).toBe(403);
    const member = await signedIn(app, deps, 'member', orgId);
    const editor = await member.browser.get(`/templates/${template.id}`);
    expect(editor.status).toBe(200);
    expect(editor.html).toContain('<fieldset disabled="">');
    expect(editor.html).not.toContain('Save as version');
    expect((await member.browser.post('/templates', { name: 'x', channelType: 'sms' })).status).toBe(403);
    for (const path of ['', '/preview', '/delete']) expect((await member.browser.post(`/templates/${template.id}${path}`, editorForm({ name: 'x' }))).status).toBe(403);
    expect(await getTemplate(deps, orgId, template.id, {})).toMatchObject({ name: 'welcome', version: 1, deletedAt: null });
  });

  it('escapes names and content everywhere, and the preview frame is sandboxed', async () => {
    const { browser, orgId } = await owner();
    const template = await createTemplate(deps, orgId, { name: HOSTILE, channelType: 'email', subject: HOSTILE, html: `<p>{{ firstName }}</p>${HOSTILE}`, text: HOSTILE });
    await browser.post(`/templates/${template.id}`, { ...editorForm({ name: HOSTILE, subject: `${HOSTILE}!`, html: HOSTILE, text: HOSTILE }), variables: '{}' });
    const pages = await Promise.all([
      browser.get('/templates'),
      browser.get(`/templates/${template.id}`),
      browser.get(`/templates/${template.id}/versions`),
      browser.get(`/templates/${template.id}/delete`),
      browser.post(`/templates/${template.id}/preview`, editorForm({ name: HOSTILE, html: `${HOSTILE}<p>{{ firstName }}</p>`, variables: JSON.stringify({ firstName: HOSTILE }) })),
    ]);
    for (const page of pages) {
      expect(page.html).not.toContain(HOSTILE);
      expect(page.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    }
    const preview = pages[4]!.html;
    expect(preview).toMatch(/<iframe class="email-frame" sandbox="allow-popups allow-popups-to-escape-sandbox" srcdoc="[^"]*"/);
    // the variable's value is HTML-escaped by the template engine, then the whole HTML once more as an attribute
    expect(preview).toContain('&lt;p&gt;&amp;lt;script&amp;gt;alert(1)&amp;lt;/script&amp;gt;&lt;/p&gt;');
  });
});
