import { createHash } from 'node:crypto';
import {
  createSession,
  createUser,
  deleteExpiredSessions,
  deleteSession,
  findSession,
  hashPassword,
  SESSION_TTL_MS,
  switchSessionOrg,
  verifyCredentials,
  verifyPassword,
} from '@tidings/core';
import { loadConfig } from '@tidings/config';
import { createTestDeps, makeOrganization } from '@tidings/testing';

const deps = createTestDeps();
afterAll(() => deps.close());

let counter = 0;
async function person(role: 'owner' | 'operator' | 'member' = 'owner') {
  counter += 1;
  const { orgId } = await makeOrganization(deps);
  const email = `person-${counter}-${Date.now()}@sessions.test`;
  const { user } = await createUser(deps, { orgId, email, password: 'a good long password', role });
  return { orgId, user, email };
}

describe('passwords', () => {
  it('are stored as scrypt hashes with a random salt, and only the right one verifies', async () => {
    // production's cost, the default (the suites lower it: PASSWORD_HASH_COST)
    const production = loadConfig({});
    const a = await hashPassword('correct horse battery', production);
    const b = await hashPassword('correct horse battery', production);
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct horse battery', a, production)).toBe(true);
    expect(await verifyPassword('correct horse batterY', a, production)).toBe(false);
    expect(await verifyPassword('anything', null, production)).toBe(false);
    expect(await verifyPassword('anything', 'md5$abc', production)).toBe(false);
  });

  it('take the configured cost, and verify by the cost each hash carries whatever the setting is now', async () => {
    const cheap = loadConfig({ PASSWORD_HASH_COST: '10' });
    const costly = loadConfig({ PASSWORD_HASH_COST: '16' });
    const made = await hashPassword('correct horse battery', cheap);
    expect(made).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(await hashPassword('correct horse battery', costly)).toMatch(/^scrypt\$65536\$8\$1\$/);
    // raised later: the hashes already stored still verify, and a wrong password still fails
    expect(await verifyPassword('correct horse battery', made, costly)).toBe(true);
    expect(await verifyPassword('correct horse batterY', made, costly)).toBe(false);
    // and a person made under the suites' lowered setting signs in where the default holds
    expect(deps.config.passwordHashCost).toBeLessThan(15);
    const { email, user } = await person();
    const defaults = { ...deps, config: loadConfig({ ...process.env, PASSWORD_HASH_COST: undefined }) };
    expect(defaults.config.passwordHashCost).toBe(15);
    expect(await verifyCredentials(defaults, email, 'a good long password')).toMatchObject({ id: user.id });
  });

  it('check credentials case-insensitively by email, and the same way for an unknown one', async () => {
    const { email, user } = await person();
    expect(await verifyCredentials(deps, email.toUpperCase(), 'a good long password')).toMatchObject({ id: user.id });
    expect(await verifyCredentials(deps, email, 'wrong password!')).toBeNull();
    expect(await verifyCredentials(deps, 'nobody@sessions.test', 'a good long password')).toBeNull();
  });
});

describe('sessions', () => {
  it('store only the hash of the token, and find the person and their organization', async () => {
    const { user, orgId } = await person();
    const { token, expiresAt } = await createSession(deps, user.id);
    expect(expiresAt.getTime()).toBeGreaterThan(Date.now() + SESSION_TTL_MS - 60_000);
    const rows = await deps.db.session.findMany({ where: { userId: user.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(token);

    const signedIn = await findSession(deps, token);
    expect(signedIn).toMatchObject({ user: { id: user.id }, membership: { orgId, role: 'owner' } });
    expect(await findSession(deps, `${token}x`)).toBeNull();
  });

  it('end at sign-out and when they expire', async () => {
    const { user } = await person();
    const { token } = await createSession(deps, user.id);
    await deleteSession(deps, token);
    expect(await findSession(deps, token)).toBeNull();

    const later = { ...deps, now: () => new Date(Date.now() + SESSION_TTL_MS + 1000) };
    const second = await createSession(deps, user.id);
    expect(await findSession(later, second.token)).toBeNull();
    expect(await deps.db.session.count({ where: { userId: user.id } })).toBe(0);

    await createSession(deps, user.id);
    expect(await deleteExpiredSessions(later)).toBeGreaterThanOrEqual(1);
    expect(await deps.db.session.count({ where: { userId: user.id } })).toBe(0);
  });

  it('switch only to an organization the person belongs to', async () => {
    const { user, orgId, email } = await person();
    const other = await makeOrganization(deps);
    const stranger = await makeOrganization(deps);
    await createUser(deps, { orgId: other.orgId, email, password: 'ignored for existing', role: 'member' });
    const { token } = await createSession(deps, user.id);
    const signedIn = (await findSession(deps, token))!;
    expect(signedIn.memberships.map((m) => m.orgId).sort()).toEqual([orgId, other.orgId].sort());

    await expect(switchSessionOrg(deps, signedIn, stranger.orgId)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await findSession(deps, token))!.membership.orgId).toBe(orgId);
    await switchSessionOrg(deps, signedIn, other.orgId);
    expect((await findSession(deps, token))!.membership).toMatchObject({ orgId: other.orgId, role: 'member' });
  });

  it('follow memberships: removed from the current organization, the session moves; from all, it ends', async () => {
    const { user, orgId, email } = await person();
    const other = await makeOrganization(deps);
    await createUser(deps, { orgId: other.orgId, email, password: 'ignored for existing', role: 'member' });
    const { token } = await createSession(deps, user.id, orgId);
    await deps.db.membership.delete({ where: { orgId_userId: { orgId, userId: user.id } } });
    expect((await findSession(deps, token))!.membership.orgId).toBe(other.orgId);
    await deps.db.membership.delete({ where: { orgId_userId: { orgId: other.orgId, userId: user.id } } });
    expect(await findSession(deps, token)).toBeNull();
  });
});
