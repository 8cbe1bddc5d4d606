// The Phone numbers pages through HTTP (app.request) over real Postgres and Redis, buying from the sandbox provider.
import { purchasePhoneNumber, searchAvailableNumbers } from '@tidings/core';
import { createTestDeps } from '@tidings/testing';
import { createDashboard } from '../src/app.ts';
import { signedIn } from './signed-in.ts';

const deps = createTestDeps();
const app = createDashboard(deps);
afterAll(() => deps.close());

const owner = () => signedIn(app, deps, 'owner');

/** Two numbers bought in `orgId` (the first becomes the default). */
async function twoNumbers(orgId: string) {
  const { data } = await searchAvailableNumbers(deps, orgId, 'live', { country: 'US', areaCode: '415', limit: 2 });
  const first = await purchasePhoneNumber(deps, orgId, 'live', { number: data[0]!.number, friendlyName: 'Support line' });
  const second = await purchasePhoneNumber(deps, orgId, 'live', { number: data[1]!.number });
  return [first, second] as const;
}

const defaults = async (orgId: string) => (await deps.db.phoneNumber.findMany({ where: { orgId, isDefault: true } })).map((n) => n.id);

describe('phone numbers pages', () => {
  it('search and buy: the first number becomes the default', async () => {
    const { browser, orgId } = await owner();
    expect((await browser.get('/phone-numbers')).html).toContain('No phone numbers yet');
    const results = await browser.get('/phone-numbers/available?country=US&areaCode=415&type=local');
    expect(results.status).toBe(200);
    const offered = [...results.html.matchAll(/data-number="(\+1415\d{7})"/g)].map((m) => m[1]!);
    expect(offered.length).toBeGreaterThan(0);

    const bought = await browser.post('/phone-numbers', { number: offered[0]! });
    expect(bought.status).toBe(303);
    const page = await browser.get(bought.location!);
    expect(page.html).toContain(`${offered[0]} is yours, and it is the default number.`);
    expect(page.html).toContain('<span class="badge enabled">Default</span>');
    const [row] = await deps.db.phoneNumber.findMany({ where: { orgId } });
    expect(row).toMatchObject({ number: offered[0], isDefault: true, provider: 'sandbox' });
  });

  it('a bad search says what is wrong next to the field', async () => {
    const { browser } = await owner();
    const res = await browser.get('/phone-numbers/available?country=USA&areaCode=41a');
    expect(res.status).toBe(400);
    expect(res.html).toContain('Must be an ISO 3166 alpha-2 code such as US.');
    expect(res.html).toContain('Must be 1 to 5 digits.');
  });

  it('edits the keyword replies: a text is kept, an empty box goes back to the default', async () => {
    const { browser, orgId } = await owner();
    const [first] = await twoNumbers(orgId);
    const page = await browser.get(`/phone-numbers/${first.id}`);
    expect(page.html).toContain('Keyword replies');
    expect(page.html).toMatch(/placeholder="[^"]*: you are unsubscribed/);
    const saved = await browser.post(`/phone-numbers/${first.id}/replies`, { stop: '', start: ' ', help: 'Acme: call 555-0100.' });
    expect(saved.status).toBe(303);
    expect((await browser.get(saved.location!)).html).toContain('The keyword replies are saved.');
    expect((await deps.db.phoneNumber.findUniqueOrThrow({ where: { id: first.id } })).replies).toEqual({ help: 'Acme: call 555-0100.' });
    const tooLong = await browser.post(`/phone-numbers/${first.id}/replies`, { help: 'x'.repeat(1601) });
    expect(tooLong.status).toBe(400);
    expect((await deps.db.phoneNumber.findUniqueOrThrow({ where: { id: first.id } })).replies).toEqual({ help: 'Acme: call 555-0100.' });
  });

  it("shows a number's sending rate and sets it: a rate is kept, an empty box goes back to its type's default, a bad one is refused", async () => {
    const { browser, orgId } = await owner();
    const [first] = await twoNumbers(orgId);
    const page = await browser.get(`/phone-numbers/${first.id}`);
    expect(page.html).toContain('<dt>Sending rate</dt><dd>1 message a second</dd>'); // a local long code's default
    expect(page.html).toContain('name="messagesPerSecond" value="1"');
    const saved = await browser.post(`/phone-numbers/${first.id}/rate`, { messagesPerSecond: '2.5' });
    expect(saved.status).toBe(303);
    expect((await browser.get(saved.location!)).html).toContain('<dt>Sending rate</dt><dd>2.5 messages a second</dd>');
    expect((await deps.db.phoneNumber.findUniqueOrThrow({ where: { id: first.id } })).messagesPerSecond).toBe(2.5);
    for (const bad of ['0', 'fast', '5000']) {
      const refused = await browser.post(`/phone-numbers/${first.id}/rate`, { messagesPerSecond: bad });
      expect([bad, refused.status, refused.html.includes('Use a number from 0.01 to 1000.')]).toEqual([bad, 400, true]);
    }
    expect((await browser.post(`/phone-numbers/${first.id}/rate`, { messagesPerSecond: ' ' })).status).toBe(303);
    expect((await deps.db.phoneNumber.findUniqueOrThrow({ where: { id: first.id } })).messagesPerSecond).toBeNull();
  });

  it('make default moves the default to the chosen number', async () => {
    const { browser, orgId } = await owner();
    const [first, second] = await twoNumbers(orgId);
    const list = await browser.get('/phone-numbers');
    expect(list.html).toContain(`action="/phone-numbers/${second.id}/default"`);
    expect(list.html).not.toContain(`action="/phone-numbers/${first.id}/default"`);
    const res = await browser.post(`/phone-numbers/${second.id}/default`);
    expect(res.location).toBe('/phone-numbers');
    expect((await browser.get('/phone-numbers')).html).toContain(`${second.number} is the default number`);
    expect(await defaults(orgId)).toEqual([second.id]);
  });

  it('renames a number, and releases it after asking', async () => {
    const { browser, orgId } = await owner();
    const [first] = await twoNumbers(orgId);
    expect((await browser.post(`/phone-numbers/${first.id}/name`, { friendlyName: 'Alerts' })).status).toBe(303);
    expect((await browser.get(`/phone-numbers/${first.id}`)).html).toContain('value="Alerts"');
    const confirm = await browser.get(`/phone-numbers/${first.id}/release`);
    expect(confirm.html).toContain(`Release ${first.number}`);
    expect(confirm.html).toContain('It is the default number');
    expect((await browser.post(`/phone-numbers/${first.id}/release`)).location).toBe('/phone-numbers');
    expect((await browser.get('/phone-numbers')).html).toContain(`${first.number} is released.`);
    expect(await deps.db.phoneNumber.findUnique({ where: { id: first.id } })).toBeNull();
  });

  it('another organization’s number is not found on every page and action, and nothing of it shows', async () => {
    const mine = await owner();
    const theirs = await owner();
    const [foreign] = await twoNumbers(theirs.orgId);
    for (const path of [`/phone-numbers/${foreign.id}`, `/phone-numbers/${foreign.id}/release`]) {
      const res = await mine.browser.get(path);
      expect(res.status).toBe(404);
      expect(res.html).not.toContain(foreign.number);
    }
    for (const action of ['default', 'name', 'release', 'rate']) {
      expect((await mine.browser.post(`/phone-numbers/${foreign.id}/${action}`, { friendlyName: 'Mine now', messagesPerSecond: '5' })).status).toBe(404);
    }
    expect((await mine.browser.get('/phone-numbers')).html).not.toContain(foreign.number);
    expect(await deps.db.phoneNumber.findUniqueOrThrow({ where: { id: foreign.id } })).toMatchObject({ orgId: theirs.orgId, friendlyName: 'Support line', isDefault: true });
    expect(await defaults(mine.orgId)).toEqual([]);
  });

  it('needs the CSRF token, and a manager: members read but change nothing', async () => {
    const { browser, orgId } = await owner();
    const [first, second] = await twoNumbers(orgId);
    expect((await browser.send('POST', `/phone-numbers/${second.id}/default`, {})).status).toBe(403);

    const member = await signedIn(app, deps, 'member', orgId);
    const list = await member.browser.get('/phone-numbers');
    expect(list.status).toBe(200);
    expect(list.html).toContain(second.number);
    expect(list.html).not.toContain('Make default');
    expect(list.html).not.toContain('Search numbers');
    expect((await member.browser.get('/phone-numbers/available?country=US')).status).toBe(403);
    expect((await member.browser.post('/phone-numbers', { number: '+14155550199' })).status).toBe(403);
    for (const action of ['default', 'name', 'release', 'rate']) {
      expect((await member.browser.post(`/phone-numbers/${second.id}/${action}`, { friendlyName: 'x', messagesPerSecond: '5' })).status).toBe(403);
    }
    expect(await defaults(orgId)).toEqual([first.id]);
    expect(await deps.db.phoneNumber.count({ where: { orgId } })).toBe(2);
  });
});
