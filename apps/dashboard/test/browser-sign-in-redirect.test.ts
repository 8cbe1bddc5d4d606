// The `next` of the sign-in page, followed by a real chromium: it may only lead back into the dashboard.
import { createOrganization, createUser } from '@tidings/core';
import type { Page } from 'playwright-core';
import { startStack, type Stack } from './harness.ts';

const PERSON = { email: 'redirect@acme.test', password: 'correct horse battery' };

let stack: Stack;
let page: Page;

beforeAll(async () => {
  stack = await startStack();
  const { organization } = await createOrganization(stack.deps, { name: 'Acme', mode: 'test' });
  await createUser(stack.deps, { orgId: organization.id, email: PERSON.email, password: PERSON.password, role: 'owner' });
  page = await stack.browser.newPage();
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

/** Signs in from `/sign-in?next=<rawNext>` (rawNext goes into the query as written) and returns where the browser lands. */
async function landingAfterSignIn(rawNext: string): Promise<URL> {
  await stack.browser.clearCookies();
  const res = await page.goto(`${stack.dashboardUrl}/sign-in?next=${rawNext}`);
  expect(res?.status()).toBe(200);
  await page.fill('input[name=email]', PERSON.email);
  await page.fill('input[name=password]', PERSON.password);
  await Promise.all([page.waitForURL((url) => url.pathname !== '/sign-in'), page.click('button:has-text("Sign in")')]);
  return new URL(page.url());
}

describe('sign-in redirect (next)', () => {
  it('leads back to a page of the dashboard', async () => {
    const landed = await landingAfterSignIn(encodeURIComponent('/messages?status=failed'));
    expect(`${landed.origin}${landed.pathname}${landed.search}`).toBe(`${stack.dashboardUrl}/messages?status=failed`);
  });

  // The API's server stands for "another host": a browser that got there followed an open redirect.
  it.each([
    ['a tab after the first slash', (host: string) => `/%09/${host}/healthz`],
    ['a newline after the first slash', (host: string) => `/%0A/${host}/healthz`],
    ['a carriage return inside the slashes', (host: string) => `/%0D/${host}/healthz`],
    ['a backslash', (host: string) => `/%5C${host}/healthz`],
    ['a dot segment before two slashes', (host: string) => `/.//${host}/healthz`],
    ['two slashes', (host: string) => `//${host}/healthz`],
    ['an absolute URL', (host: string) => encodeURIComponent(`http://${host}/healthz`)],
  ])('never reaches another host through %s', async (_, nextFor) => {
    const otherHost = new URL(stack.apiUrl).host;
    const landed = await landingAfterSignIn(nextFor(otherHost));
    expect(landed.origin).toBe(stack.dashboardUrl);
  });

  it('a newline or NUL in next is never a 500, signed in or not', async () => {
    // a NUL is refused like every text Postgres cannot hold (400); the others only lose their way back (200)
    for (const [next, status] of [
      ['%0A', 200],
      ['/a%0Ab', 200],
      ['/x%0D%0ASet-Cookie:%20a=b', 200],
      ['/%00', 400],
    ] as const) {
      const signedOut = await fetch(`${stack.dashboardUrl}/sign-in?next=${next}`);
      expect({ next, status: signedOut.status }).toEqual({ next, status });
      await signedOut.arrayBuffer();
    }
    await landingAfterSignIn('/');
    const res = await page.goto(`${stack.dashboardUrl}/sign-in?next=/x%0D%0ASet-Cookie:%20a=b`);
    expect(res?.status()).toBe(200);
    expect(new URL(page.url()).origin).toBe(stack.dashboardUrl);
    expect((await stack.browser.cookies(stack.dashboardUrl)).map((cookie) => cookie.name)).not.toContain('a');
  });
});
