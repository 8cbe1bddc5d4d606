// The Contacts pages through HTTP (app.request) over real Postgres and Redis.
import { createContact } from '@tidings/core';
import { createTestDeps } from '@tidings/testing';
import { createDashboard } from '../src/app.ts';
import { signedIn } from './signed-in.ts';

const deps = createTestDeps();
const app = createDashboard(deps);
afterAll(() => deps.close());

const owner = () => signedIn(app, deps, 'owner');
const SCRIPT = '<script>alert(1)</script>';

/** A multipart upload of `csv` as the import form sends it without its script. */
async function upload(browser: Awaited<ReturnType<typeof owner>>['browser'], csv: string) {
  const body = new FormData();
  body.append('_csrf', browser.csrf);
  body.append('file', new File([csv], 'contacts.csv', { type: 'text/csv' }));
  const res = await app.request('http://localhost/contacts/import', {
    method: 'POST',
    body,
    headers: { cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
  });
  return { status: res.status, html: await res.text() };
}

describe('contacts pages', () => {
  it('adds a contact with attributes, edits and removes one, and deletes it after asking', async () => {
    const { browser, orgId } = await owner();
    expect((await browser.get('/contacts')).html).toContain('No contacts yet');
    const added = await browser.post('/contacts', {
      email: 'Ada@Example.com',
      firstName: 'Ada',
      emailSubscribed: 'on',
      attrKey: ['plan', 'seats', ''],
      attrValue: ['pro', '12', ''],
    });
    expect(added.status).toBe(303);
    const contact = await deps.db.contact.findFirstOrThrow({ where: { orgId } });
    expect(contact).toMatchObject({ email: 'ada@example.com', firstName: 'Ada', attributes: { plan: 'pro', seats: 12 }, emailSubscribed: true, smsSubscribed: false });
    expect(added.location).toBe(`/contacts/${contact.id}`);
    const detail = await browser.get(added.location!);
    expect(detail.html).toContain('The contact is added.');
    expect(detail.html).toContain('value="12"');

    // plan removed (emptied), seats changed, trial added
    const saved = await browser.post(`/contacts/${contact.id}`, {
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      emailSubscribed: 'on',
      attrKey: ['', 'seats', 'trial'],
      attrValue: ['', '13', 'true'],
    });
    expect(saved.status).toBe(303);
    expect(await deps.db.contact.findUniqueOrThrow({ where: { id: contact.id } })).toMatchObject({ lastName: 'Lovelace', attributes: { seats: 13, trial: true } });

    const unchanged = await browser.post(`/contacts/${contact.id}`, {
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      emailSubscribed: 'on',
      attrKey: ['seats', 'trial'],
      attrValue: ['13', 'true'],
    });
    expect((await browser.get(unchanged.location!)).html).toContain('Nothing changed.');

    expect((await browser.get(`/contacts/${contact.id}/delete`)).html).toContain('Delete Ada Lovelace');
    expect(await browser.post(`/contacts/${contact.id}/delete`)).toMatchObject({ status: 303, location: '/contacts' });
    expect(await deps.db.contact.count({ where: { orgId } })).toBe(0);
  });

  it('says what is wrong next to the field', async () => {
    const { browser, orgId } = await owner();
    const noAddress = await browser.post('/contacts', { firstName: 'Nobody' });
    expect(noAddress.status).toBe(400);
    expect(noAddress.html).toContain('Email or phone is required.');
    const badKey = await browser.post('/contacts', { email: 'a@example.com', attrKey: ['favourite colour'], attrValue: ['blue'] });
    expect(badKey.status).toBe(400);
    expect(badKey.html).toContain('“favourite colour”: attribute names are 1 to 64 letters');
    const noKey = await browser.post('/contacts', { email: 'a@example.com', attrKey: [''], attrValue: ['blue'] });
    expect(noKey.html).toContain('Give each attribute value a name.');
    await createContact(deps, orgId, { email: 'taken@example.com', emailSubscribed: true, smsSubscribed: true });
    const duplicate = await browser.post('/contacts', { email: 'taken@example.com' });
    expect(duplicate.status).toBe(400);
    expect(duplicate.html).toMatch(/another contact in this organization has this email/i);
    expect(await deps.db.contact.count({ where: { orgId } })).toBe(1);
  });

  it('searches by prefix and filters by subscription', async () => {
    const { browser, orgId } = await owner();
    await createContact(deps, orgId, { email: 'grace@example.com', firstName: 'Grace', emailSubscribed: true, smsSubscribed: false });
    await createContact(deps, orgId, { email: 'alan@example.com', firstName: 'Alan', emailSubscribed: false, smsSubscribed: false });
    const found = await browser.get('/contacts?q=gra');
    expect(found.html).toContain('grace@example.com');
    expect(found.html).not.toContain('alan@example.com');
    const unsubscribed = await browser.get('/contacts?subscribed=false');
    expect(unsubscribed.html).toContain('alan@example.com');
    expect(unsubscribed.html).not.toContain('grace@example.com');
    expect((await browser.get('/contacts?q=zed')).html).toContain('No contacts match these filters');
    expect((await browser.get('/contacts?subscribed=maybe')).status).toBe(400);
  });

  it('exports the filtered contacts as the API’s CSV, streamed, from a link on the list; only this organization’s', async () => {
    const { browser, orgId } = await owner();
    const other = await owner();
    await createContact(deps, orgId, { email: 'grace@example.com', firstName: 'Grace', attributes: { plan: 'pro' }, emailSubscribed: true, smsSubscribed: false });
    await createContact(deps, orgId, { email: 'alan@example.com', firstName: 'Alan', emailSubscribed: true, smsSubscribed: false });
    await createContact(deps, other.orgId, { email: 'eve@example.com', firstName: 'Eve', emailSubscribed: true, smsSubscribed: false });
    const list = await browser.get('/contacts?q=gra');
    expect(list.html).toContain('href="/contacts/export.csv?q=gra"');
    const exported = await browser.get('/contacts/export.csv?q=gra');
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(exported.headers.get('content-disposition')).toBe('attachment; filename="contacts.csv"');
    const [header, ...rows] = exported.html.trim().split(/\r?\n/);
    expect(header).toBe('id,email,phone,firstName,lastName,emailSubscribed,smsSubscribed,createdAt,updatedAt,attributes.plan');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain('grace@example.com');
    const all = await browser.get('/contacts/export.csv');
    expect(all.html).toContain('alan@example.com');
    expect(all.html).not.toContain('eve@example.com');
    expect((await browser.get('/contacts/export.csv?subscribed=maybe')).status).toBe(400);
  });

  it('imports a CSV without the script, and reports the rows it could not import', async () => {
    const { browser, orgId } = await owner();
    await browser.get('/contacts/import');
    const csv = 'email,firstName,plan\na@example.com,Ann,pro\nnot-an-email,Bad,pro\n"b@example.com","Bob, Jr.",team\na@example.com,Again,pro\n';
    const res = await upload(browser, csv);
    expect(res.status).toBe(200);
    expect(res.html).toContain('2 of 4 contacts imported; 2 rows were not (listed below).');
    expect(res.html).toMatch(/<td>2<\/td><td>email: [^<]+<\/td>/);
    expect(res.html).toContain('<td>4</td><td>email: same email as row 1</td>');
    expect((await deps.db.contact.findMany({ where: { orgId }, orderBy: { email: 'asc' } })).map((c) => [c.email, c.firstName, c.attributes])).toEqual([
      ['a@example.com', 'Ann', { plan: 'pro' }],
      ['b@example.com', 'Bob, Jr.', { plan: 'team' }],
    ]);
    const badHeader = await upload(browser, 'name,plan\nAda,pro\n');
    expect(badHeader.status).toBe(400);
    expect(badHeader.html).toContain('with an email or a phone column');
  });

  it('refuses an upload over 11 MB before reading it into a form (413), and imports nothing', async () => {
    const { browser, orgId } = await owner();
    const row = 'someone@example.com,Some,One\n';
    const { status, html } = await upload(browser, `email,firstName,lastName\n${row.repeat(Math.ceil((12 * 1024 * 1024) / row.length))}`);
    expect(status).toBe(413);
    expect(html).toContain('Too large');
    expect(await deps.db.contact.count({ where: { orgId } })).toBe(0);
  });

  it('imports a chunk for the script, numbering rows of the file', async () => {
    const { browser, orgId } = await owner();
    await browser.get('/contacts/import');
    const chunk = (firstRow: number, text: string, csrf = browser.csrf) =>
      app.request(`http://localhost/contacts/import/chunk?firstRow=${firstRow}`, {
        method: 'POST',
        body: text,
        headers: { 'content-type': 'text/csv', 'x-csrf-token': csrf, cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
      });
    const res = await chunk(501, 'email,phone\nc@example.com,\n,12\n');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ created: 1, updated: 0, errors: [{ row: 502, message: expect.stringMatching(/^phone: /) }] });
    expect(await deps.db.contact.count({ where: { orgId } })).toBe(1);
    // text Postgres cannot hold is a row error, never a 500
    const nul = await chunk(1, 'email,firstName,note\ne@example.com,A\u0000,x\nf@example.com,F,y\u0000\n');
    expect(await nul.json()).toEqual({ created: 0, updated: 0, errors: [expect.objectContaining({ row: 1 }), expect.objectContaining({ row: 2 })] });
    expect((await chunk(1, 'email\nd@example.com\n', 'forged')).status).toBe(403);
    expect(await deps.db.contact.count({ where: { orgId } })).toBe(1);
  });

  it('another organization’s contact is not found on every page and action, and nothing of it shows', async () => {
    const mine = await owner();
    const theirs = await owner();
    const foreign = await createContact(deps, theirs.orgId, { email: 'theirs@example.com', firstName: 'Theirs', emailSubscribed: true, smsSubscribed: true });
    for (const path of [`/contacts/${foreign.id}`, `/contacts/${foreign.id}/delete`]) {
      const res = await mine.browser.get(path);
      expect(res.status).toBe(404);
      expect(res.html).not.toContain('theirs@example.com');
    }
    for (const path of [`/contacts/${foreign.id}`, `/contacts/${foreign.id}/delete`]) {
      expect((await mine.browser.post(path, { email: 'mine@example.com', firstName: 'Mine' })).status).toBe(404);
    }
    expect((await mine.browser.get('/contacts')).html).not.toContain('theirs@example.com');
    expect(await deps.db.contact.findUniqueOrThrow({ where: { id: foreign.id } })).toMatchObject({ orgId: theirs.orgId, email: 'theirs@example.com', firstName: 'Theirs' });
  });

  it('needs the CSRF token, and a manager: members read but change nothing', async () => {
    const { browser, orgId } = await owner();
    const contact = await createContact(deps, orgId, { email: 'kept@example.com', emailSubscribed: true, smsSubscribed: true });
    expect((await browser.send('POST', '/contacts', { email: 'x@example.com' })).status).toBe(403);
    expect((await browser.send('POST', `/contacts/${contact.id}/delete`, {})).status).toBe(403);

    const member = await signedIn(app, deps, 'member', orgId);
    const list = await member.browser.get('/contacts');
    expect(list.html).toContain('kept@example.com');
    expect(list.html).not.toContain('New contact');
    expect(list.html).not.toContain('Import a CSV');
    expect((await member.browser.get(`/contacts/${contact.id}`)).html).not.toContain('Save contact');
    expect((await member.browser.post('/contacts', { email: 'x@example.com' })).status).toBe(403);
    expect((await member.browser.post(`/contacts/${contact.id}`, { email: 'x@example.com' })).status).toBe(403);
    expect((await member.browser.post(`/contacts/${contact.id}/delete`)).status).toBe(403);
    expect((await member.browser.post('/contacts/import/chunk', {})).status).toBe(403);
    expect((await deps.db.contact.findMany({ where: { orgId } })).map((c) => c.email)).toEqual(['kept@example.com']);
  });

  it('escapes names and attributes people typed, on the list, the page and the import report', async () => {
    const { browser, orgId } = await owner();
    const contact = await createContact(deps, orgId, { email: 'x@example.com', firstName: SCRIPT, attributes: { note: SCRIPT }, emailSubscribed: true, smsSubscribed: true });
    for (const path of ['/contacts', `/contacts/${contact.id}`, `/contacts/${contact.id}/delete`, `/contacts?q=${encodeURIComponent(SCRIPT)}`]) {
      const html = (await browser.get(path)).html;
      expect({ path, raw: html.includes(SCRIPT) }).toEqual({ path, raw: false });
    }
    expect((await browser.get(`/contacts/${contact.id}`)).html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    await browser.get('/contacts/import');
    const report = await upload(browser, `email,firstName\n${SCRIPT},x\n`);
    expect(report.html).not.toContain(SCRIPT);
    const header = await upload(browser, `email,"${SCRIPT}"\n`);
    expect(header.html).not.toContain(SCRIPT);
    expect(header.html).toContain('Column “&lt;script&gt;');
  });

  it('ids and filters Postgres cannot hold are a 404 or a 400, never a 500, on contacts, segments and suppressions', async () => {
    const { browser } = await owner();
    const NUL = encodeURIComponent('a\u0000b');
    for (const base of ['/contacts', '/segments', '/suppressions']) {
      expect({ base, status: (await browser.get(`${base}/${NUL}`)).status }).toEqual({ base, status: 404 });
      for (const query of [`q=${NUL}`, `address=${NUL}`, `segmentId=${NUL}`, 'cursor=bm90LWEtY3Vyc29y']) {
        const { status } = await browser.get(`${base}?${query}`);
        expect({ base, query, isServerError: status >= 500 }).toEqual({ base, query, isServerError: false });
      }
    }
  });
});
