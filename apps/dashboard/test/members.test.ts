// Settings > Members and invitation links, through HTTP (app.request) over real Postgres and Redis.
import { createHash } from 'node:crypto';
import { createUser } from '@tidings/core';
import { createTestDeps, makeOrganization } from '@tidings/testing';
import { createDashboard } from '../src/app.ts';
import { dashboardClient } from './client.ts';

const deps = createTestDeps();
const app = createDashboard(deps);
afterAll(() => deps.close());

const PASSWORD = 'a good long password';
let counter = 0;
const uniqueEmail = (label: string) => `${label}-${++counter}-${Date.now()}@members.test`;

async function signedIn(role: 'owner' | 'operator' | 'member', orgId?: string) {
  const org = orgId ?? (await makeOrganization(deps)).orgId;
  const email = uniqueEmail(role);
  await createUser(deps, { orgId: org, email, password: PASSWORD, role });
  const browser = dashboardClient(app);
  expect((await browser.signIn(email, PASSWORD)).status).toBe(303);
  await browser.get('/settings/members');
  return { orgId: org, email, browser };
}

async function invite(browser: ReturnType<typeof dashboardClient>, email: string, role = 'member') {
  const res = await browser.post('/settings/members/invitations', { email, role });
  expect(res.status).toBe(303);
  const page = await browser.get('/settings/members');
  const link = /id="invite-link" readonly="" value="([^"]+)"/.exec(page.html)![1]!;
  return new URL(link).pathname;
}

describe('invitations', () => {
  it('show the link once, store only its hash, and let a new person join with the invited role', async () => {
    const owner = await signedIn('owner');
    const email = uniqueEmail('new');
    const path = await invite(owner.browser, email, 'operator');
    expect(path).toMatch(/^\/invite\/[A-Za-z0-9_-]{43}$/);
    const token = path.split('/')[2]!;
    expect((await owner.browser.get('/settings/members')).html).not.toContain(token);
    const row = await deps.db.invitation.findFirstOrThrow({ where: { email } });
    expect(row.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));

    const invitee = dashboardClient(app);
    const page = await invitee.get(path);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Join Org');
    const short = await invitee.post(path, { name: 'Nia', password: 'short' });
    expect(short.status).toBe(400);
    expect(short.html).toContain('Must be at least 10 characters.');
    const joined = await invitee.post(path, { name: 'Nia', password: PASSWORD });
    expect(joined.status).toBe(303);
    expect((await invitee.get('/settings/api-keys')).html).toContain('>operator<');
    const user = await deps.db.user.findUniqueOrThrow({ where: { email } });
    expect(await deps.db.membership.findUnique({ where: { orgId_userId: { orgId: owner.orgId, userId: user.id } } })).toMatchObject({ role: 'operator' });

    expect((await dashboardClient(app).get(path)).status).toBe(404);
  });

  it("link to PUBLIC_DASHBOARD_URL, whatever Host the owner's request carried", async () => {
    const org = (await makeOrganization(deps)).orgId;
    const email = uniqueEmail('owner');
    await createUser(deps, { orgId: org, email, password: PASSWORD, role: 'owner' });
    const browser = dashboardClient(app, 'http://evil.example');
    expect((await browser.signIn(email, PASSWORD)).status).toBe(303);
    await browser.get('/settings/members');
    expect((await browser.post('/settings/members/invitations', { email: uniqueEmail('new'), role: 'member' })).status).toBe(303);
    const link = /id="invite-link" readonly="" value="([^"]+)"/.exec((await browser.get('/settings/members')).html)![1]!;
    expect(link).toMatch(new RegExp(`^${deps.config.publicDashboardUrl.replace(/[.:/]/g, '\\$&')}/invite/[A-Za-z0-9_-]{43}$`));
    expect(link).not.toContain('evil.example');
  });

  it('let a person with an account join with their own password, and no other', async () => {
    const owner = await signedIn('owner');
    const elsewhere = await signedIn('member');
    const path = await invite(owner.browser, elsewhere.email);
    const browser = dashboardClient(app);
    expect((await browser.get(path)).html).toContain('Password of your account');
    const wrong = await browser.post(path, { password: 'not my password' });
    expect(wrong.status).toBe(400);
    expect(wrong.html).toContain('Is not the password of this account.');
    expect((await browser.post(path, { password: PASSWORD })).status).toBe(303);
    const user = await deps.db.user.findUniqueOrThrow({ where: { email: elsewhere.email } });
    expect(await deps.db.membership.count({ where: { userId: user.id } })).toBe(2);
  });

  it('refuses members, owners invited by operators, existing members; and revoked links stop working', async () => {
    const owner = await signedIn('owner');
    const member = await signedIn('member', owner.orgId);
    expect((await member.browser.post('/settings/members/invitations', { email: uniqueEmail('x'), role: 'member' })).status).toBe(403);

    const operator = await signedIn('operator', owner.orgId);
    const ownerInvite = await operator.browser.post('/settings/members/invitations', { email: uniqueEmail('boss'), role: 'owner' });
    expect(ownerInvite.status).toBe(400);
    expect(ownerInvite.html).toContain('Only owners can invite owners.');

    const duplicate = await owner.browser.post('/settings/members/invitations', { email: member.email, role: 'member' });
    expect(duplicate.status).toBe(400);
    expect(duplicate.html).toContain('is already a member');
    const bad = await owner.browser.post('/settings/members/invitations', { email: 'not-an-email', role: 'member' });
    expect(bad.html).toContain('Must be a valid email address.');

    const path = await invite(owner.browser, uniqueEmail('revoked'));
    const invitation = await deps.db.invitation.findFirstOrThrow({ where: { orgId: owner.orgId, revokedAt: null, acceptedAt: null } });
    const stranger = await signedIn('owner');
    expect((await stranger.browser.post(`/settings/members/invitations/${invitation.id}/revoke`)).status).toBe(404);
    expect((await dashboardClient(app).get(path)).status).toBe(200);
    expect((await owner.browser.post(`/settings/members/invitations/${invitation.id}/revoke`)).status).toBe(303);
    expect((await dashboardClient(app).get(path)).status).toBe(404);
  });

  it('list only the current organization’s people', async () => {
    const a = await signedIn('owner');
    const b = await signedIn('owner');
    const page = await a.browser.get('/settings/members');
    expect(page.html).toContain(a.email);
    expect(page.html).not.toContain(b.email);
  });
});

describe('members', () => {
  const userIdOf = async (email: string) => (await deps.db.user.findUniqueOrThrow({ where: { email } })).id;
  const roleOf = async (orgId: string, userId: string) => (await deps.db.membership.findUnique({ where: { orgId_userId: { orgId, userId } } }))?.role;

  it('owners change roles and remove people; the last owner stays', async () => {
    const owner = await signedIn('owner');
    const operator = await signedIn('operator', owner.orgId);
    const operatorId = await userIdOf(operator.email);
    const ownerId = await userIdOf(owner.email);
    await owner.browser.get('/settings/members');

    expect((await owner.browser.post(`/settings/members/${operatorId}/role`, { role: 'member' })).status).toBe(303);
    expect(await roleOf(owner.orgId, operatorId)).toBe('member');
    const unknown = await owner.browser.post(`/settings/members/${operatorId}/role`, { role: 'emperor' });
    expect(unknown.status).toBe(400);
    expect(await roleOf(owner.orgId, operatorId)).toBe('member');

    const demoteSelf = await owner.browser.post(`/settings/members/${ownerId}/role`, { role: 'operator' });
    expect(demoteSelf.status).toBe(409);
    expect(demoteSelf.html).toContain('The last owner cannot be removed or demoted');
    expect((await owner.browser.post(`/settings/members/${ownerId}/remove`)).status).toBe(409);
    expect(await roleOf(owner.orgId, ownerId)).toBe('owner');

    // with a second owner, the first may step down
    expect((await owner.browser.post(`/settings/members/${operatorId}/role`, { role: 'owner' })).status).toBe(303);
    expect((await owner.browser.post(`/settings/members/${ownerId}/role`, { role: 'operator' })).status).toBe(303);
    expect(await roleOf(owner.orgId, ownerId)).toBe('operator');

    const ask = await operator.browser.get(`/settings/members/${ownerId}/remove`);
    expect(ask.html).toContain(`Remove ${owner.email}`);
    expect((await operator.browser.post(`/settings/members/${ownerId}/remove`)).status).toBe(303);
    expect(await roleOf(owner.orgId, ownerId)).toBeUndefined();
    expect(await deps.db.user.count({ where: { id: ownerId } })).toBe(1); // the account stays
  });

  it('refuses operators and members, another organization’s people (404), and posts without the form token', async () => {
    const owner = await signedIn('owner');
    const operator = await signedIn('operator', owner.orgId);
    const member = await signedIn('member', owner.orgId);
    const memberId = await userIdOf(member.email);
    expect((await operator.browser.post(`/settings/members/${memberId}/role`, { role: 'owner' })).status).toBe(403);
    expect((await operator.browser.post(`/settings/members/${memberId}/remove`)).status).toBe(403);
    expect((await member.browser.post(`/settings/members/${memberId}/role`, { role: 'owner' })).status).toBe(403);
    expect(await roleOf(owner.orgId, memberId)).toBe('member');
    expect((await operator.browser.get('/settings/members')).html).not.toContain('/remove"');
    expect((await operator.browser.get(`/settings/members/${memberId}/remove`)).status).toBe(403);

    const stranger = await signedIn('owner');
    expect((await stranger.browser.post(`/settings/members/${memberId}/role`, { role: 'owner' })).status).toBe(404);
    expect((await stranger.browser.post(`/settings/members/${memberId}/remove`)).status).toBe(404);
    expect((await stranger.browser.get(`/settings/members/${memberId}/remove`)).status).toBe(404);
    expect((await owner.browser.post(`/settings/members/${memberId}/remove`, { _csrf: 'forged' })).status).toBe(403);
    expect(await roleOf(owner.orgId, memberId)).toBe('member');
  });

  it('escapes names and addresses people chose', async () => {
    const owner = await signedIn('owner');
    const hostile = `x-${Date.now()}@members.test`;
    await createUser(deps, { orgId: owner.orgId, email: hostile, password: PASSWORD, role: 'member', name: '<img src=x onerror=alert(1)>' });
    const page = await owner.browser.get('/settings/members');
    expect(page.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page.html).not.toContain('<img src=x');
  });
});
