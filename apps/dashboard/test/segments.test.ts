// The Segments pages through HTTP (app.request) over real Postgres and Redis.
import { bulkCreateContacts, createSegment, recountSegment } from '@tidings/core';
import { createTestDeps } from '@tidings/testing';
import { createDashboard } from '../src/app.ts';
import { signedIn } from './signed-in.ts';

const deps = createTestDeps();
const app = createDashboard(deps);
afterAll(() => deps.close());

const owner = () => signedIn(app, deps, 'owner');
const SCRIPT = '<script>alert(1)</script>';

/** Ten contacts: seats 1..10, plan pro for even seats, email-subscribed for seats up to 5. */
async function tenContacts(orgId: string) {
  const rows = Array.from({ length: 10 }, (_, i) => ({
    email: `c${i + 1}@example.com`,
    firstName: `C${i + 1}`,
    attributes: { seats: i + 1, plan: (i + 1) % 2 === 0 ? 'pro' : 'free' },
    emailSubscribed: i + 1 <= 5,
  }));
  expect((await bulkCreateContacts(deps, orgId, rows)).created).toHaveLength(10);
}

describe('segments pages', () => {
  it('builds criteria with a nested group, counts the matches, saves, and lists the matching contacts', async () => {
    const { browser, orgId } = await owner();
    await tenContacts(orgId);
    expect((await browser.get('/segments')).html).toContain('No segments yet');
    const start = await browser.get('/segments/new');
    expect(start.html).toContain('name="field.r.0"');
    expect(start.html).toContain('5 contacts match now'); // the first condition: subscribed to email

    // the form as a browser posts it after the "+ Group" button: a nested any-group with one new condition
    const grouped = await browser.post('/segments/new', {
      name: 'Pro or big',
      'join.r': 'all',
      'field.r.0': 'emailSubscribed',
      'op.r.0': 'eq',
      'value.r.0': 'true',
      do: 'add-group:r',
    });
    expect(grouped.status).toBe(200);
    expect(grouped.html).toContain('name="join.r.1"');
    expect(grouped.html).toContain('name="field.r.1.0"');

    const form = {
      name: 'Pro or big',
      'join.r': 'all',
      'field.r.0': 'emailSubscribed',
      'op.r.0': 'eq',
      'value.r.0': 'true',
      'join.r.1': 'any',
      'field.r.1.0': 'attribute',
      'attr.r.1.0': 'plan',
      'op.r.1.0': 'eq',
      'value.r.1.0': 'pro',
      'field.r.1.1': 'attribute',
      'attr.r.1.1': 'seats',
      'op.r.1.1': 'gte',
      'value.r.1.1': '5',
    };
    // subscribed (seats 1..5) and (pro or seats >= 5): seats 2, 4, 5
    const counted = await browser.post('/segments/new', { ...form, do: 'count' });
    expect(counted.html).toContain('3 contacts match now');
    const removed = await browser.post('/segments/new', { ...form, do: 'remove:r.1.1' });
    expect(removed.html).toContain('2 contacts match now');
    expect(removed.html).not.toContain('name="field.r.1.1"');

    const saved = await browser.post('/segments/new', { ...form, do: 'save' });
    expect(saved.status).toBe(303);
    const segment = await deps.db.segment.findFirstOrThrow({ where: { orgId } });
    expect(segment.criteria).toEqual({
      all: [
        { field: 'emailSubscribed', op: 'eq', value: true },
        {
          any: [
            { field: 'attributes.plan', op: 'eq', value: 'pro' },
            { field: 'attributes.seats', op: 'gte', value: 5 },
          ],
        },
      ],
    });
    const detail = await browser.get(saved.location!);
    expect(detail.html).toContain('The segment is saved: 3 contacts match now.');
    expect([...detail.html.matchAll(/<tr data-contact-id="[^"]+"><td class="name"><a [^>]+>(C\d+)</g)].map((m) => m[1]).sort()).toEqual(['C2', 'C4', 'C5']);
    // the stored criteria load back into the builder
    expect(detail.html).toContain('name="attr.r.1.1" value="seats"');
    expect(detail.html).toContain('name="value.r.1.1" value="5"');

    const edited = await browser.post(`/segments/${segment.id}`, { ...form, name: 'Big', 'value.r.1.1': '2', do: 'save' });
    expect(edited.status).toBe(303);
    // the new conditions are counted in the background (a send-worker's job, run here by hand)
    expect((await browser.get(edited.location!)).html).toContain('Counting the contacts that match the new conditions');
    await recountSegment(deps, segment.id);
    expect((await browser.get(edited.location!)).html).toContain('4 contacts match now');
    expect((await browser.get(`/contacts?segmentId=${segment.id}`)).html).toContain('C3');

    expect((await browser.get(`/segments/${segment.id}/delete`)).html).toContain('Delete the segment Big');
    expect(await browser.post(`/segments/${segment.id}/delete`)).toMatchObject({ status: 303, location: '/segments' });
    expect(await deps.db.segment.count({ where: { orgId } })).toBe(0);
    expect(await deps.db.contact.count({ where: { orgId } })).toBe(10);
  });

  it('says what is wrong next to the condition, and saves nothing', async () => {
    const { browser, orgId } = await owner();
    const res = await browser.post('/segments/new', {
      name: '',
      'join.r': 'all',
      'field.r.0': 'email',
      'op.r.0': 'gt',
      'value.r.0': 'x',
      'field.r.1': 'attribute',
      'attr.r.1': 'bad key!',
      'op.r.1': 'eq',
      'value.r.1': 'x',
      do: 'save',
    });
    expect(res.status).toBe(400);
    expect(res.html).toContain('gt does not apply to email');
    expect(res.html).toContain('unknown field');
    expect(res.html).toContain('Complete the conditions to see how many contacts match.');
    const empty = await browser.post('/segments/new', { name: 'Empty', 'join.r': 'all', do: 'save' });
    expect(empty.html).toContain('must be a list of 1 to 100 conditions or groups');
    expect(await deps.db.segment.count({ where: { orgId } })).toBe(0);
  });

  it('another organization’s segment is not found on every page and action', async () => {
    const mine = await owner();
    const theirs = await owner();
    const foreign = await createSegment(deps, theirs.orgId, { name: 'Theirs', criteria: { all: [{ field: 'email', op: 'exists' }] } });
    for (const path of [`/segments/${foreign.id}`, `/segments/${foreign.id}/delete`, `/contacts?segmentId=${foreign.id}`]) {
      expect((await mine.browser.get(path)).status).toBe(404);
    }
    for (const path of [`/segments/${foreign.id}`, `/segments/${foreign.id}/delete`]) {
      expect((await mine.browser.post(path, { name: 'Mine', 'join.r': 'all', 'field.r.0': 'email', 'op.r.0': 'exists', do: 'save' })).status).toBe(404);
    }
    expect((await mine.browser.get('/segments')).html).not.toContain('Theirs');
    expect(await deps.db.segment.findUniqueOrThrow({ where: { id: foreign.id } })).toMatchObject({ orgId: theirs.orgId, name: 'Theirs' });
  });

  it('needs the CSRF token, and a manager: members read the criteria but change nothing', async () => {
    const { browser, orgId } = await owner();
    const segment = await createSegment(deps, orgId, { name: 'Kept', criteria: { all: [{ field: 'email', op: 'exists' }] } });
    const save = { name: 'Changed', 'join.r': 'all', 'field.r.0': 'email', 'op.r.0': 'exists', do: 'save' };
    expect((await browser.send('POST', `/segments/${segment.id}`, save)).status).toBe(403);
    expect((await browser.send('POST', '/segments/new', save)).status).toBe(403);
    const member = await signedIn(app, deps, 'member', orgId);
    const detail = await member.browser.get(`/segments/${segment.id}`);
    expect(detail.html).toContain('<code>email</code> is set');
    expect(detail.html).not.toContain('segment-builder');
    for (const path of ['/segments/new', `/segments/${segment.id}`, `/segments/${segment.id}/delete`]) {
      expect((await member.browser.post(path, save)).status).toBe(403);
    }
    expect((await deps.db.segment.findMany({ where: { orgId } })).map((s) => s.name)).toEqual(['Kept']);
  });

  it('escapes names, attribute names and values people typed', async () => {
    const { browser, orgId } = await owner();
    const segment = await createSegment(deps, orgId, { name: SCRIPT, criteria: { all: [{ field: 'attributes.note', op: 'eq', value: SCRIPT }] } });
    const member = await signedIn(app, deps, 'member', orgId);
    for (const [who, path] of [
      [browser, '/segments'],
      [browser, `/segments/${segment.id}`],
      [browser, `/segments/${segment.id}/delete`],
      [member.browser, `/segments/${segment.id}`],
    ] as const) {
      expect({ path, raw: (await who.get(path)).html.includes(SCRIPT) }).toEqual({ path, raw: false });
    }
    const typed = await browser.post('/segments/new', {
      name: SCRIPT,
      'join.r': 'all',
      'field.r.0': 'attribute',
      'attr.r.0': SCRIPT,
      'op.r.0': 'eq',
      'value.r.0': SCRIPT,
      do: 'count',
    });
    expect(typed.status).toBe(400);
    expect(typed.html).not.toContain(SCRIPT);
  });
});
