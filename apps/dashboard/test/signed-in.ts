import { createUser } from '@tidings/core';
import { makeOrganization, type TestDeps } from '@tidings/testing';
import type { Dashboard } from '../src/app.ts';
import { dashboardClient } from './client.ts';

export type Role = 'owner' | 'operator' | 'member';
const PASSWORD = 'a good long password';
let counter = 0;

/**
 * A person of `role` in `orgId` (a new organization when absent), signed in through the dashboard's own form, with a
 * CSRF token of this session ready for posts.
 * @example const owner = await signedIn(app, deps, 'owner'); await owner.browser.post('/webhooks', {...});
 */
export async function signedIn(app: Dashboard, deps: TestDeps, role: Role = 'owner', orgId?: string) {
  counter += 1;
  const org = orgId ?? (await makeOrganization(deps)).orgId;
  const email = `${role}-${counter}-${Date.now()}@resources.test`;
  await createUser(deps, { orgId: org, email, password: PASSWORD, role });
  const browser = dashboardClient(app);
  expect((await browser.signIn(email, PASSWORD)).status).toBe(303);
  await browser.get('/settings/api-keys'); // a page with forms: its CSRF token is the session's
  return { orgId: org, email, browser };
}
