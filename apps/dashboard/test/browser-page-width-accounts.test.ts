// The pages outside the signed-in layout at 1,280 px with long content: sign-up (open, joining an organization with
// a long name, closed), sign-in and its two-factor step, forgot and reset password, invitations; and the account
// pages of the person they make, whose long address and organizations' long names head every page. Each page fits
// the window (page-width.ts). The pages behind sign-in are in browser-page-width.test.ts.
import { createInvitation, createOrganization } from '@tidings/core';
import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { startStack, waitFor, type Stack } from './harness.ts';
import { expectPageFits, LONG_EMAIL, LONG_NAME } from './page-width.ts';

const PASSWORD = 'correct horse battery';
const INVITED = `invited.${LONG_EMAIL}`;

let stack: Stack;
let page: Page;

beforeAll(async () => {
  stack = await startStack();
  page = await stack.browser.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

/** Opens `path`, does `act` when given, and expects the page shown to fit the window (page-width.ts). */
const expectFits = (path: string, act?: () => Promise<unknown>) => expectPageFits(page, `${stack.dashboardUrl}${path}`, path, act);

/** Fills the form's fields named in `fields`, clicks `button`, and waits for `shown` on the page that follows. */
const submit = (fields: Record<string, string>, button: string, shown: string) => async () => {
  for (const [name, value] of Object.entries(fields)) await page.fill(`input[name=${name}]`, value);
  await page.click(`button:has-text("${button}")`);
  await page.locator(shown).first().waitFor();
};

const codeOf = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate();

describe('pages outside the signed-in layout at 1,280 px with long content', () => {
  let invitationLink = '';

  it('fits the first sign-up of an empty install', async () => {
    await expectFits('/sign-up');
  });

  it('fits the first sign-up joining an organization with a long name, and the page it lands on, headed by the long address', async () => {
    await createOrganization(stack.deps, { name: LONG_NAME, mode: 'test' });
    await expectFits('/sign-up');
    await expect(page.locator('#joins-organization').textContent()).resolves.toContain(LONG_NAME);
    await expectFits('/sign-up', submit({ name: LONG_NAME, email: LONG_EMAIL, password: PASSWORD }, 'Create account in', '.flash'));
    expect(new URL(page.url()).pathname).toBe('/settings/api-keys');
  });

  it('fits the account page, two-factor enrolment, and the recovery codes shown once', async () => {
    await expectFits('/settings/account');
    let secret = '';
    await expectFits('/settings/account/two-factor', async () => {
      secret = (await page.locator('#totp-secret').textContent())!;
    });
    await expectFits('/settings/account/two-factor', async () => {
      await page.fill('input[name=code]', codeOf(secret));
      await page.click('button:has-text("Turn on")');
      await page.locator('#recovery-codes-value').waitFor();
    });
  });

  it('fits the members page with an invitation link for a long address', async () => {
    await expectFits('/settings/members', async () => {
      await submit({ email: INVITED }, 'Create invitation link', '#invite-link')();
      invitationLink = new URL(await page.inputValue('#invite-link')).pathname;
    });
  });

  it('fits the invitation pages: for a new account, for an existing one, and the page it leads to, with two organizations to switch between', async () => {
    await stack.browser.clearCookies();
    await expectFits(invitationLink);
    await expect(page.locator('h1').textContent()).resolves.toBe(`Join ${LONG_NAME}`);
    const other = await createOrganization(stack.deps, { name: `${LONG_NAME}Again`, mode: 'test' });
    const owner = await stack.deps.db.user.findUniqueOrThrow({ where: { email: LONG_EMAIL } });
    const { token } = await createInvitation(stack.deps, other.organization.id, { email: LONG_EMAIL, role: 'operator', invitedByUserId: owner.id });
    await expectFits(`/invite/${token}`);
    await expect(page.locator('input[name=password]').count()).resolves.toBe(1);
    await expect(page.locator('input[name=name]').count()).resolves.toBe(0); // an existing account proves itself with its password
    await expectFits(`/invite/${token}`, submit({ password: PASSWORD }, 'Join', '.org-switcher'));
    await expectFits('/invite/no-such-token');
  });

  it('fits sign-up once closed, sign-in, a refused password, and the page-not-found page', async () => {
    await stack.browser.clearCookies();
    await expectFits('/sign-up');
    await expect(page.locator('h1').textContent()).resolves.toBe('Sign-up is closed');
    await expectFits('/sign-in');
    await expectFits('/sign-in', submit({ email: LONG_EMAIL, password: 'not the password' }, 'Sign in', '.form-error'));
    await expectFits('/no-such-page');
  });

  it('fits the two-factor step after the password, and a wrong code', async () => {
    await expectFits('/sign-in', submit({ email: LONG_EMAIL, password: PASSWORD }, 'Sign in', 'input[name=code]'));
    expect(new URL(page.url()).pathname).toBe('/sign-in/two-factor');
    await expectFits('/sign-in/two-factor', submit({ code: '000000' }, 'Verify', '#code-help'));
  });

  it('fits forgot password, its answer naming the long address, the reset page of its link, and a refused link', async () => {
    await stack.browser.clearCookies();
    await expectFits('/forgot-password');
    await expectFits('/forgot-password', submit({ email: LONG_EMAIL }, 'Send the link', '#reset-sent'));
    const reset = await waitFor(
      () => stack.deps.db.message.findFirst({ where: { to: LONG_EMAIL, tags: { has: 'tidings-password-reset' } } }),
      (message) => message !== null,
    );
    await expectFits(/\/reset-password\/[A-Za-z0-9_-]+/.exec(reset!.text ?? '')![0]);
    await expect(page.locator('input[name=password]').count()).resolves.toBe(1);
    await expectFits('/reset-password/no-such-token');
    await expect(page.locator('#reset-link-refused').count()).resolves.toBe(1);
  });
});
