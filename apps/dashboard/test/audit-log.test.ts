// Settings > Audit log, and the rows the dashboard's own changes write (the person as actor), through HTTP
// (app.request) over real Postgres and Redis.
import { createTestDeps } from '@tidings/testing';
import { createDashboard } from '../src/app.ts';
import { dashboardClient } from './client.ts';
import { signedIn } from './signed-in.ts';

const deps = createTestDeps({ TRUST_PROXY: 'true' });
const app = createDashboard(deps);
afterAll(() => deps.close());

const FROM = { 'x-forwarded-for': '203.0.113.9' };

async function inviteLink(browser: ReturnType<typeof dashboardClient>, email: string): Promise<string> {
  expect((await browser.post('/settings/members/invitations', { email, role: 'member' }, FROM)).status).toBe(303);
  const page = await browser.get('/settings/members');
  return new URL(/id="invite-link" readonly="" value="([^"]+)"/.exec(page.html)![1]!).pathname;
}

describe('Settings > Audit log', () => {
  it('records members, invitations and keys changed in the dashboard as the person who did it, and lists them with filters', async () => {
    const owner = await signedIn(app, deps, 'owner');
    const ownerId = (await deps.db.user.findUniqueOrThrow({ where: { email: owner.email } })).id;
    expect((await owner.browser.post('/settings/api-keys', { name: 'From the dashboard', permission: 'full' }, FROM)).status).toBe(303);
    const key = await deps.db.apiKey.findFirstOrThrow({ where: { orgId: owner.orgId, name: 'From the dashboard' } });

    const joinerEmail = `joiner-${Date.now()}@audit.test`;
    const path = await inviteLink(owner.browser, joinerEmail);
    const invitee = dashboardClient(app);
    await invitee.get(path); // its form's CSRF token
    expect((await invitee.post(path, { name: 'Jo', password: 'a good long password' }, FROM)).status).toBe(303);
    const joiner = await deps.db.user.findUniqueOrThrow({ where: { email: joinerEmail } });
    expect((await owner.browser.post(`/settings/members/${joiner.id}/role`, { role: 'operator' }, FROM)).status).toBe(303);
    // a refused change (the last owner cannot be demoted) leaves no row
    expect((await owner.browser.post(`/settings/members/${ownerId}/role`, { role: 'member' }, FROM)).status).toBe(409);

    const rows = await deps.db.auditEvent.findMany({ where: { orgId: owner.orgId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    const invitation = await deps.db.invitation.findFirstOrThrow({ where: { email: joinerEmail } });
    expect(rows.map((r) => [r.action, r.actorType, r.actorId, r.targetId, r.ip])).toEqual([
      ['apiKey.created', 'user', ownerId, key.id, '203.0.113.9'],
      ['invitation.created', 'user', ownerId, invitation.id, '203.0.113.9'],
      ['invitation.accepted', 'user', joiner.id, invitation.id, '203.0.113.9'],
      ['member.roleChanged', 'user', ownerId, joiner.id, '203.0.113.9'],
    ]);

    const page = await owner.browser.get('/settings/audit-log');
    expect(page.status).toBe(200);
    for (const action of ['apiKey.created', 'invitation.created', 'invitation.accepted', 'member.roleChanged']) expect(page.html).toContain(`<code>${action}</code>`);
    expect(page.html).toContain(owner.email);
    expect(page.html).toContain('203.0.113.9');

    const byAction = await owner.browser.get('/settings/audit-log?action=member.roleChanged');
    expect(byAction.html.match(/data-audit-id=/g)).toHaveLength(1);
    const byJoiner = await owner.browser.get(`/settings/audit-log?actorId=${joiner.id}`);
    expect(byJoiner.html.match(/data-audit-id=/g)).toHaveLength(1);
    expect(byJoiner.html).toContain('<code>invitation.accepted</code>');
    const future = await owner.browser.get('/settings/audit-log?since=2999-01-01');
    expect(future.html).toContain('No changes match these filters');
    const bad = await owner.browser.get('/settings/audit-log?action=nonsense');
    expect(bad.status).toBe(400);
  });

  it("is for owners and operators only, and shows only the organization's own changes", async () => {
    const owner = await signedIn(app, deps, 'owner');
    await owner.browser.post('/settings/api-keys', { name: 'Theirs', permission: 'full' });
    const member = await signedIn(app, deps, 'member', owner.orgId);
    expect((await member.browser.get('/settings/audit-log')).status).toBe(403);
    const stranger = await signedIn(app, deps, 'owner');
    const theirs = await stranger.browser.get('/settings/audit-log');
    expect(theirs.status).toBe(200);
    expect(theirs.html).toContain('No changes yet');
  });
});
