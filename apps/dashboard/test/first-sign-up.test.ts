// The first sign-up of an install, on a database of its own (the shared test database already has people).
import { createOrganization, createUser, isSignUpOpen, signUpFirstOwner } from '@tidings/core';
import { createTestDeps, type TestDeps } from '@tidings/testing';
import { createDashboard } from '../src/app.ts';
import { dashboardClient } from './client.ts';
import { createEmptyDatabase } from './harness.ts';

let database: Awaited<ReturnType<typeof createEmptyDatabase>>;
let deps: TestDeps;

beforeAll(async () => {
  database = await createEmptyDatabase();
  deps = createTestDeps({ DATABASE_URL: database.url });
}, 120_000);

afterAll(async () => {
  await deps?.close();
  await database?.drop();
});

it('on an empty install sends visitors to sign up; of eight simultaneous sign-ups exactly one creates the organization', async () => {
  const app = createDashboard(deps);
  expect(await isSignUpOpen(deps)).toBe(true);
  expect((await app.request('http://localhost/')).headers.get('location')).toBe('/sign-up');

  const attempts = await Promise.allSettled(
    ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((who) => signUpFirstOwner(deps, { email: `${who}@first.test`, password: 'a good long password', organizationName: `Org ${who}` })),
  );
  expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
  for (const refused of attempts.filter((a) => a.status === 'rejected')) {
    expect((refused as PromiseRejectedResult).reason).toMatchObject({ code: 'FORBIDDEN', message: 'Sign-up is closed: ask an owner to add you' });
  }
  expect(await deps.db.organization.count()).toBe(1);
  expect(await deps.db.membership.findMany({ select: { role: true } })).toEqual([{ role: 'owner' }]);
  expect(await isSignUpOpen(deps)).toBe(false);
  expect((await app.request('http://localhost/')).headers.get('location')).toBe('/sign-in');
});

it('refuses a bad first sign-up with the field named, and creates nothing', async () => {
  const empty = await createEmptyDatabase();
  const fresh = createTestDeps({ DATABASE_URL: empty.url });
  try {
    await expect(signUpFirstOwner(fresh, { email: 'nope', password: 'a good long password', organizationName: 'Acme' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: 'email: must be a valid email address',
    });
    await expect(signUpFirstOwner(fresh, { email: 'a@b.test', password: 'a good long password', organizationName: '  ' })).rejects.toMatchObject({
      message: 'organizationName: must be 1 to 100 characters',
    });
    expect(await fresh.db.user.count()).toBe(0);
    expect(await fresh.db.organization.count()).toBe(0);
  } finally {
    await fresh.close();
    await empty.drop();
  }
}, 120_000);

it('makes the first account of an install its operator, who opens the queues; a later account gets a 403 page saying how an operator grants them', async () => {
  const empty = await createEmptyDatabase();
  const fresh = createTestDeps({ DATABASE_URL: empty.url });
  try {
    const { orgId } = await signUpFirstOwner(fresh, { email: 'first@install.test', password: 'a good long password', organizationName: 'Acme' });
    await createUser(fresh, { orgId, email: 'second@install.test', password: 'a good long password', role: 'owner' });
    const operators = await fresh.db.user.findMany({ select: { email: true, isInstallOperator: true }, orderBy: { email: 'asc' } });
    expect(operators).toEqual([
      { email: 'first@install.test', isInstallOperator: true },
      { email: 'second@install.test', isInstallOperator: false },
    ]);
    const app = createDashboard(fresh);
    const first = dashboardClient(app);
    expect((await first.signIn('first@install.test', 'a good long password')).status).toBe(303);
    expect((await first.get('/admin/queues')).status).toBe(200);
    const second = dashboardClient(app);
    expect((await second.signIn('second@install.test', 'a good long password')).status).toBe(303);
    const refused = await second.get('/admin/queues');
    expect(refused.status).toBe(403);
    expect(refused.html).toContain('Queues (Bull Board) shows the background jobs of every organization');
    expect(refused.html).toContain('npx tidings users grant-operator --email');
  } finally {
    await fresh.close();
    await empty.drop();
  }
}, 120_000);

it('makes the first account an operator when the command line creates it too', async () => {
  const empty = await createEmptyDatabase();
  const fresh = createTestDeps({ DATABASE_URL: empty.url });
  try {
    const { organization } = await createOrganization(fresh, { name: 'Acme', mode: 'test' });
    await createUser(fresh, { orgId: organization.id, email: 'ops@install.test', password: 'a good long password' });
    await createUser(fresh, { orgId: organization.id, email: 'dev@install.test', password: 'a good long password' });
    expect(await fresh.db.user.findMany({ where: { isInstallOperator: true }, select: { email: true } })).toEqual([{ email: 'ops@install.test' }]);
  } finally {
    await fresh.close();
    await empty.drop();
  }
}, 120_000);
