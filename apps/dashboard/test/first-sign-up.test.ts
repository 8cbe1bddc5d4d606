// The first sign-up of an install, on a database of its own (the shared test database already has people).
import { isSignUpOpen, signUpFirstOwner } from '@tidings/core';
import { createTestDeps, type TestDeps } from '@tidings/testing';
import { createDashboard } from '../src/app.ts';
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
