import { setupApi } from './setup.ts';

const t = setupApi();
afterAll(() => t.close());

// Postgres text and jsonb cannot hold NUL (U+0000). Every place a caller's string could reach the database refuses it
// as bad input naming the field; none may become a 500.
const NUL = 'a\u0000b';

describe('strings Postgres cannot store are 400 naming the field, never 500', () => {
  it('contacts, templates and segments', async () => {
    const { api, orgId } = await t.org();
    const tpl = await api.post('/v1/templates', { name: 'a', channelType: 'sms', body: '{{ v }}' });
    const seg = await api.post('/v1/segments', { name: 'a', criteria: { all: [{ field: 'email', op: 'exists' }] } });
    const con = await api.post('/v1/contacts', { email: 'a@example.com' });
    const q = encodeURIComponent(NUL);
    const cases: [Promise<{ status: number; body: { message: string } }>, string][] = [
      [api.post('/v1/contacts', { email: 'x@example.com', firstName: NUL }), 'firstName:'],
      [api.post('/v1/contacts', { email: 'x@example.com', attributes: { a: NUL } }), 'attributes.a:'],
      [api.patch(`/v1/contacts/${con.body.id}`, { lastName: NUL }), 'lastName:'],
      [api.get(`/v1/contacts?q=${q}`), 'q:'],
      [api.get(`/v1/contacts?segmentId=${q}`), 'segmentId:'],
      [api.get(`/v1/contacts/${q}`), 'id:'],
      [api.get(`/v1/templates/${q}`), 'id:'],
      [api.get(`/v1/segments/${q}/contacts`), 'id:'],
      [api.post('/v1/templates', { name: NUL, channelType: 'sms', body: 'x' }), 'name:'],
      [api.post('/v1/templates', { name: 'n', channelType: 'email', subject: 's', html: NUL }), 'html:'],
      [api.patch(`/v1/templates/${tpl.body.id}`, { body: NUL }), 'body:'],
      [api.get(`/v1/templates?name=${q}`), 'name:'],
      [api.post(`/v1/templates/${tpl.body.id}/preview`, { variables: { v: NUL } }), 'variables.v:'],
      [api.post('/v1/segments', { name: NUL, criteria: { all: [{ field: 'email', op: 'exists' }] } }), 'name:'],
      [api.post('/v1/segments', { name: 'n', criteria: { all: [{ field: 'firstName', op: 'eq', value: NUL }] } }), 'criteria.all.0.value:'],
      [api.post('/v1/segments', { name: 'n', criteria: { any: [{ field: 'attributes.a', op: 'in', value: ['ok', NUL] }] } }), 'criteria.any.0.value:'],
      [api.patch(`/v1/segments/${seg.body.id}`, { name: NUL }), 'name:'],
      [api.get(`/v1/templates/${tpl.body.id}?version=3000000000`), 'version:'],
    ];
    for (const [call, field] of cases) {
      const res = await call;
      expect({ status: res.status, field: res.body.message.startsWith(field) }).toEqual({ status: 400, field: true });
    }
    const bulk = await api.post('/v1/contacts/bulk', { contacts: [{ email: 'z@example.com', firstName: NUL }, { email: 'ok@example.com' }] });
    expect(bulk.body.errors).toEqual([{ index: 0, code: 'BAD_REQUEST', message: 'firstName: must not contain the NUL character (U+0000)' }]);
    expect(bulk.body.created).toHaveLength(1);
    expect(await t.deps.db.contact.count({ where: { orgId } })).toBe(2);
  });
});
