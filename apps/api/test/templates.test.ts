import { setupApi } from './setup.ts';

const t = setupApi();
afterAll(() => t.close());

const welcome = {
  name: 'Welcome',
  channelType: 'email',
  subject: 'Hi {{ firstName }} & welcome',
  html: '<p>Hello {{ firstName }}, your code is <b>{{ code }}</b></p>',
  text: 'Hello {{ firstName }}, your code is {{ code }}',
};
const otp = { name: 'OTP', channelType: 'sms', body: 'Your code is {{ code }}' };

describe('template.create', () => {
  it('creates version 1 with the variables derived from the content', async () => {
    const { api } = await t.org();
    const res = await api.post('/v1/templates', welcome);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ ...welcome, body: null, version: 1, variables: ['firstName', 'code'], deletedAt: null });
    expect(res.body.id).toMatch(/^tpl_/);
    const sms = await api.post('/v1/templates', { name: 'Order', channelType: 'sms', body: '{{ order.number }} ships {% if express %}today{% endif %}' });
    expect(sms.body.variables).toEqual(['order', 'express']);
  });

  it('refuses content that does not fit the channel, or does not parse, naming the field', async () => {
    const { api, orgId } = await t.org();
    const cases: [object, RegExp][] = [
      [{ name: 'x', channelType: 'email', html: '<p/>' }, /^subject: required/],
      [{ name: 'x', channelType: 'email', subject: 's' }, /^html: html or text is required/],
      [{ name: 'x', channelType: 'sms' }, /^body: required/],
      [{ name: 'x', channelType: 'sms', body: 'b', subject: 's' }, /^subject: only email templates/],
      [{ name: 'x', channelType: 'fax', body: 'b' }, /^channelType:/],
      [{ name: '', channelType: 'sms', body: 'b' }, /^name:/],
      [{ name: 'x', channelType: 'sms', body: 'Hi {{ name ' }, /^body: not a valid template/],
      [{ name: 'x', channelType: 'email', subject: 's', html: '{% if %}', unknown: 1 }, /unknown: unknown field/],
    ];
    for (const [body, message] of cases) {
      const res = await api.post('/v1/templates', body);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect(await t.deps.db.template.count({ where: { orgId } })).toBe(0);
  });
});

describe('template versions, get and list', () => {
  it('each update writes version N+1; older versions stay readable; listVersions pages newest first', async () => {
    const { api } = await t.org();
    const v1 = await api.post('/v1/templates', otp);
    const v2 = await api.patch(`/v1/templates/${v1.body.id}`, { body: 'Code: {{ code }} (valid {{ minutes }} min)' });
    expect(v2.status).toBe(200);
    expect(v2.body).toMatchObject({ version: 2, body: 'Code: {{ code }} (valid {{ minutes }} min)', variables: ['code', 'minutes'] });
    const v3 = await api.patch(`/v1/templates/${v1.body.id}`, { name: 'OTP v3' });
    expect(v3.body).toMatchObject({ version: 3, name: 'OTP v3', body: v2.body.body });

    expect((await api.get(`/v1/templates/${v1.body.id}`)).body).toMatchObject({ version: 3, name: 'OTP v3' });
    const old = await api.get(`/v1/templates/${v1.body.id}?version=1`);
    expect(old.status).toBe(200);
    expect(old.body).toMatchObject({ version: 1, body: 'Your code is {{ code }}', variables: ['code'] });
    const none = await api.get(`/v1/templates/${v1.body.id}?version=9`);
    expect(none.status).toBe(404);
    expect(none.body.message).toBe('Template version not found');
    expect((await api.get(`/v1/templates/${v1.body.id}?version=zero`)).status).toBe(400);

    const page1 = await api.get(`/v1/templates/${v1.body.id}/versions?limit=2`);
    expect(page1.body.data.map((v: { version: number }) => v.version)).toEqual([3, 2]);
    expect(page1.body.hasMore).toBe(true);
    const page2 = await api.get(`/v1/templates/${v1.body.id}/versions?limit=2&cursor=${page1.body.nextCursor}`);
    expect(page2.body).toMatchObject({ hasMore: false, nextCursor: null });
    expect(page2.body.data.map((v: { version: number }) => v.version)).toEqual([1]);
  });

  it('concurrent updates get consecutive versions, none lost', async () => {
    const { api } = await t.org();
    const tpl = await api.post('/v1/templates', otp);
    const updates = await Promise.all([1, 2, 3].map((n) => api.patch(`/v1/templates/${tpl.body.id}`, { body: `v{{ code }} ${n}` })));
    expect(updates.map((u) => u.body.version).sort()).toEqual([2, 3, 4]);
    const versions = await api.get(`/v1/templates/${tpl.body.id}/versions`);
    expect(versions.body.data.map((v: { version: number }) => v.version)).toEqual([4, 3, 2, 1]);
  });

  it('update refuses changes that break the channel rules or the syntax, and writes no version', async () => {
    const { api } = await t.org();
    const email = await api.post('/v1/templates', welcome);
    const sms = await api.post('/v1/templates', otp);
    expect((await api.patch(`/v1/templates/${email.body.id}`, { body: 'x' })).body.message).toMatch(/^body: only sms/);
    expect((await api.patch(`/v1/templates/${email.body.id}`, { html: null, text: null })).body.message).toMatch(/^html: an email template needs html or text/);
    expect((await api.patch(`/v1/templates/${email.body.id}`, { html: '{{ broken' })).body.message).toMatch(/^html: not a valid template/);
    expect((await api.patch(`/v1/templates/${sms.body.id}`, { subject: 'x' })).body.message).toMatch(/^subject: only email/);
    expect((await api.patch(`/v1/templates/${sms.body.id}`, { channelType: 'email' })).body.message).toMatch(/^channelType: unknown field/);
    expect((await api.patch(`/v1/templates/${sms.body.id}`, {})).status).toBe(400);
    expect((await api.patch('/v1/templates/tpl_nope', { name: 'x' })).status).toBe(404);
    expect((await api.get(`/v1/templates/${email.body.id}`)).body.version).toBe(1);
    expect((await api.get(`/v1/templates/${sms.body.id}`)).body.version).toBe(1);
  });

  it('a text part can be removed with null while html remains', async () => {
    const { api } = await t.org();
    const email = await api.post('/v1/templates', welcome);
    const res = await api.patch(`/v1/templates/${email.body.id}`, { text: null });
    expect(res.body).toMatchObject({ version: 2, text: null, html: welcome.html });
  });

  it('lists the latest version of each template, filtered by channelType and name', async () => {
    const { api } = await t.org();
    const email = await api.post('/v1/templates', welcome);
    const sms = await api.post('/v1/templates', otp);
    await api.patch(`/v1/templates/${sms.body.id}`, { body: 'v2 {{ code }}' });
    const all = await api.get('/v1/templates');
    expect(all.body.data.map((x: { id: string; version: number }) => [x.id, x.version])).toEqual([
      [sms.body.id, 2],
      [email.body.id, 1],
    ]);
    expect((await api.get('/v1/templates?channelType=email')).body.data.map((x: { id: string }) => x.id)).toEqual([email.body.id]);
    expect((await api.get('/v1/templates?name=OTP')).body.data.map((x: { id: string }) => x.id)).toEqual([sms.body.id]);
    expect((await api.get('/v1/templates?channelType=fax')).status).toBe(400);
  });
});

describe('template.delete (soft)', () => {
  it('hides the template from get and list unless includeDeleted; its versions stay readable with includeDeleted', async () => {
    const { api } = await t.org();
    const tpl = await api.post('/v1/templates', otp);
    expect((await api.delete(`/v1/templates/${tpl.body.id}`)).status).toBe(204);
    expect((await api.get(`/v1/templates/${tpl.body.id}`)).status).toBe(404);
    const withDeleted = await api.get(`/v1/templates/${tpl.body.id}?includeDeleted=true`);
    expect(withDeleted.status).toBe(200);
    expect(withDeleted.body.deletedAt).not.toBeNull();
    expect((await api.get('/v1/templates')).body.data).toEqual([]);
    expect((await api.get('/v1/templates?includeDeleted=true')).body.data.map((x: { id: string }) => x.id)).toEqual([tpl.body.id]);
    expect((await api.get(`/v1/templates/${tpl.body.id}/versions`)).status).toBe(404);
    expect((await api.get(`/v1/templates/${tpl.body.id}/versions?includeDeleted=true`)).body.data).toHaveLength(1);
    expect((await api.post(`/v1/templates/${tpl.body.id}/preview`, { variables: { code: '1' } })).status).toBe(404);
    expect((await api.patch(`/v1/templates/${tpl.body.id}`, { name: 'back?' })).status).toBe(404);
    expect((await api.delete(`/v1/templates/${tpl.body.id}`)).status).toBe(404);
  });
});

describe('template.preview', () => {
  it('escapes HTML in html only: subject and text carry the characters as given (known answers)', async () => {
    const { api } = await t.org();
    const tpl = await api.post('/v1/templates', welcome);
    const res = await api.post(`/v1/templates/${tpl.body.id}/preview`, { variables: { firstName: `<Ada> & "Bob's"`, code: '1<2' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      templateId: tpl.body.id,
      version: 1,
      channelType: 'email',
      subject: `Hi <Ada> & "Bob's" & welcome`,
      html: '<p>Hello &lt;Ada&gt; &amp; &#34;Bob&#39;s&#34;, your code is <b>1&lt;2</b></p>',
      text: `Hello <Ada> & "Bob's", your code is 1<2`,
      body: null,
      segments: null,
      encoding: null,
    });
  });

  it('a missing variable is 400 naming it', async () => {
    const { api } = await t.org();
    const tpl = await api.post('/v1/templates', welcome);
    const res = await api.post(`/v1/templates/${tpl.body.id}/preview`, { variables: { firstName: 'Ada' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'BAD_REQUEST', message: "variables.code: missing; the template's html uses it" });
  });

  it('renders an older version when asked, and counts SMS segments without escaping', async () => {
    const { api } = await t.org();
    const tpl = await api.post('/v1/templates', otp);
    await api.patch(`/v1/templates/${tpl.body.id}`, { body: '{{ code }} — {{ note }}' });
    const v1 = await api.post(`/v1/templates/${tpl.body.id}/preview`, { variables: { code: '<42>' }, version: 1 });
    expect(v1.body).toMatchObject({ version: 1, body: 'Your code is <42>', segments: 1, encoding: 'GSM-7', subject: null, html: null });
    const long = await api.post(`/v1/templates/${tpl.body.id}/preview`, { variables: { code: '1', note: 'é'.repeat(200) } });
    expect(long.body).toMatchObject({ version: 2, segments: 4, encoding: 'UCS-2' }); // the em dash is not GSM-7: 204 chars, 67 per part
    const emoji = await api.post(`/v1/templates/${tpl.body.id}/preview`, { variables: { code: '1', note: '😀' } });
    expect(emoji.body).toMatchObject({ segments: 1, encoding: 'UCS-2' });
    expect((await api.post(`/v1/templates/${tpl.body.id}/preview`, { variables: {}, version: 7 })).status).toBe(404);
    expect((await api.post(`/v1/templates/${tpl.body.id}/preview`, { variables: 'x' })).body.message).toMatch(/^variables:/);
  });

  it('a template cannot read files or run away (include is refused, huge loops hit the limit)', async () => {
    const { api } = await t.org();
    const include = await api.post('/v1/templates', { name: 'inc', channelType: 'sms', body: `{% include '/etc/passwd' %}` });
    const rendered = include.status === 201 ? await api.post(`/v1/templates/${include.body.id}/preview`, { variables: {} }) : include;
    expect(rendered.status).toBe(400);
    expect(JSON.stringify(rendered.body)).not.toContain('root:');
    const loop = await api.post('/v1/templates', { name: 'loop', channelType: 'sms', body: '{% for i in (1..100000000) %}{{ i }}{% endfor %}' });
    const looped = await api.post(`/v1/templates/${loop.body.id}/preview`, { variables: {} });
    expect(looped.status).toBe(400);
    expect(looped.body.message).toMatch(/^body: could not render/);
  });
});

describe("another organization's template", () => {
  it('is 404 for get, update, delete, listVersions and preview, and changes nothing', async () => {
    const owner = await t.org();
    const stranger = await t.org();
    const tpl = await owner.api.post('/v1/templates', otp);
    const id = tpl.body.id;
    const attempts = [
      stranger.api.get(`/v1/templates/${id}`),
      stranger.api.get(`/v1/templates/${id}?includeDeleted=true`),
      stranger.api.patch(`/v1/templates/${id}`, { name: 'mine now' }),
      stranger.api.delete(`/v1/templates/${id}`),
      stranger.api.get(`/v1/templates/${id}/versions`),
      stranger.api.post(`/v1/templates/${id}/preview`, { variables: { code: '1' } }),
    ];
    for (const res of await Promise.all(attempts)) expect(res.body).toEqual({ code: 'NOT_FOUND', message: 'Template not found' });
    expect((await stranger.api.get('/v1/templates?includeDeleted=true')).body.data).toEqual([]);
    expect((await owner.api.get(`/v1/templates/${id}`)).body).toEqual(tpl.body);
  });
});
