// Forgot password and two-factor sign-in in a real chromium against the real dashboard: the reset link is read
// from the sandbox inbox (where Tidings' own email to the person lands for an organization made for testing), and
// TOTP codes are made by the same library the dashboard checks them with. The dashboard's clock is pinned and moved
// by the tests, so each code belongs to a step of their choosing.
import { createOrganization, createUser } from '@tidings/core';
import { waitFor } from '@tidings/testing';
import type { Cookie, Page } from 'playwright-core';
import { Secret, TOTP } from 'otpauth';
import { screenshotPath, startStack, type Stack } from './harness.ts';

const OWNER = { email: 'owner@accounts.test', password: 'owner long password' };
const ANA = { email: 'ana@accounts.test', password: 'ana long password' };
const BEN = { email: 'ben@accounts.test', password: 'ben long password' };
const CARLA = { email: 'carla@accounts.test', password: 'carla long password' };

let stack: Stack;
let page: Page;
let clock = Date.now();

beforeAll(async () => {
  stack = await startStack();
  stack.deps.now = () => new Date(clock);
  const { organization } = await createOrganization(stack.deps, { name: 'Acme', mode: 'test' });
  await createUser(stack.deps, { orgId: organization.id, ...OWNER, role: 'owner' });
  for (const person of [ANA, BEN, CARLA]) await createUser(stack.deps, { orgId: organization.id, ...person, role: 'member' });
  page = await stack.browser.newPage();
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

const url = (path: string) => `${stack.dashboardUrl}${path}`;
const codeAt = (secret: string, at: number) => new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: at });

async function signIn(person: { email: string; password: string }) {
  await stack.browser.clearCookies();
  await page.goto(url('/sign-in'));
  await page.fill('input[name=email]', person.email);
  await page.fill('input[name=password]', person.password);
  await Promise.all([page.waitForURL((u) => u.pathname !== '/sign-in'), page.click('button:has-text("Sign in")')]);
}

/** Asks for a reset link for `email` on the forgot-password page (signed out) and returns the answer shown. */
async function askForLink(email: string): Promise<string> {
  await stack.browser.clearCookies();
  await page.goto(url('/sign-in'));
  await page.click('text=Forgot your password?');
  await page.fill('input[name=email]', email);
  await page.click('button:has-text("Send the link")');
  return (await page.locator('#reset-sent').textContent())!;
}

/** The reset link of the newest email to `email`, read in the sandbox inbox by the owner (a colleague). */
async function linkFromSandbox(email: string, count: number): Promise<string> {
  await waitFor(async () => (await stack.deps.db.message.count({ where: { to: email, tags: { has: 'tidings-password-reset' } } })) >= count, 10_000, 'the reset email');
  await signIn(OWNER);
  await page.goto(url('/sandbox?channelType=email'));
  await page.locator('tbody tr', { hasText: email }).first().locator('a').first().click();
  const text = (await page.locator('pre.text-part').textContent()) ?? '';
  await stack.browser.clearCookies();
  return /https?:\/\/\S+\/reset-password\/[A-Za-z0-9_-]+/.exec(text)![0];
}

describe('forgot password in a browser', () => {
  it('emails a link through the sandbox, sets a new password with it, and ends the other sessions', async () => {
    await signIn(ANA);
    const otherSession: Cookie[] = await stack.browser.cookies(stack.dashboardUrl);

    const answer = await askForLink(ANA.email);
    expect(answer).toContain('If ana@accounts.test has an account, a link to choose a new password is on its way');
    expect(await askForLink('nobody@accounts.test')).toBe(answer.replace('ana@accounts.test', 'nobody@accounts.test'));
    const link = await linkFromSandbox(ANA.email, 1);
    expect(link.startsWith(`${stack.dashboardUrl}/reset-password/`)).toBe(true);

    await page.goto(link);
    await page.screenshot({ path: screenshotPath('reset-password'), fullPage: true });
    await page.fill('input[name=password]', 'ana new long password');
    await Promise.all([page.waitForURL(url('/sign-in')), page.click('button:has-text("Set the password")')]);
    await expect(page.locator('.flash').textContent()).resolves.toContain('every session of your account has ended');

    // the session from before the reset is gone
    await stack.browser.addCookies(otherSession);
    await page.goto(url('/settings/account'));
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    await signIn({ email: ANA.email, password: 'ana new long password' });
    expect(new URL(page.url()).pathname).toBe('/overview');

    // the used link is refused with a page that says so
    await stack.browser.clearCookies();
    const used = await page.goto(link);
    expect(used?.status()).toBe(410);
    await expect(page.locator('#reset-link-refused h1').textContent()).resolves.toBe('This link no longer works');
  });

  it('refuses an expired link', async () => {
    await askForLink(BEN.email);
    const link = await linkFromSandbox(BEN.email, 1);
    clock += 61 * 60 * 1000;
    const res = await page.goto(link);
    expect(res?.status()).toBe(410);
    await expect(page.locator('#reset-link-refused').isVisible()).resolves.toBe(true);
    await page.screenshot({ path: screenshotPath('reset-link-refused'), fullPage: true });
  });
});

describe('two-factor sign-in in a browser', () => {
  let secret = '';
  let recoveryCodes: string[] = [];

  it('enrols from Settings > Account with a QR code and a code from the app, and shows ten recovery codes once', async () => {
    await signIn(CARLA);
    await page.goto(url('/settings/account'));
    await page.click('text=Turn on two-factor sign-in');
    await expect(page.locator('#totp-qr').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).resolves.toBe(true);
    secret = (await page.locator('#totp-secret').textContent())!;
    await page.screenshot({ path: screenshotPath('two-factor-enrol'), fullPage: true });
    await page.fill('input[name=code]', '000000');
    await page.click('button:has-text("Turn on")');
    await expect(page.locator('input[name=code][aria-invalid=true]').count()).resolves.toBe(1);
    clock += 30_000;
    await page.fill('input[name=code]', codeAt(secret, clock));
    await Promise.all([page.waitForURL(url('/settings/account')), page.click('button:has-text("Turn on")')]);
    // one code per line of the text area, copied together
    recoveryCodes = (await page.locator('#recovery-codes-value').inputValue()).split('\n');
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    for (const code of recoveryCodes) expect(code).toMatch(/^\S+$/);
    await page.reload();
    await expect(page.locator('#recovery-codes-value').count()).resolves.toBe(0);
    await expect(page.locator('#two-factor-state').textContent()).resolves.toContain('10 recovery codes left');
  });

  it('asks for the code after the password, refusing a wrong one and one already used', async () => {
    await stack.browser.clearCookies();
    await page.goto(url('/sign-in'));
    await page.fill('input[name=email]', CARLA.email);
    await page.fill('input[name=password]', CARLA.password);
    await Promise.all([page.waitForURL(url('/sign-in/two-factor')), page.click('button:has-text("Sign in")')]);
    // not signed in yet: the half-session opens nothing else
    await page.goto(url('/messages'));
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    await page.goto(url('/sign-in/two-factor'));
    await page.fill('input[name=code]', codeAt(secret, clock + 10 * 60_000));
    await page.click('button:has-text("Verify")');
    await expect(page.locator('#code-help').textContent()).resolves.toContain('That code is not right');
    clock += 30_000;
    const code = codeAt(secret, clock);
    await page.fill('input[name=code]', code);
    await Promise.all([page.waitForURL(url('/overview')), page.click('button:has-text("Verify")')]);

    // the same code, within its 30 seconds, from another browser session: refused
    await stack.browser.clearCookies();
    await page.goto(url('/sign-in'));
    await page.fill('input[name=email]', CARLA.email);
    await page.fill('input[name=password]', CARLA.password);
    await Promise.all([page.waitForURL(url('/sign-in/two-factor')), page.click('button:has-text("Sign in")')]);
    await page.fill('input[name=code]', code);
    await page.click('button:has-text("Verify")');
    await expect(page.locator('#code-help').textContent()).resolves.toContain('already used');
    expect(new URL(page.url()).pathname).toBe('/sign-in/two-factor');
  });

  it('takes a recovery code once', async () => {
    const useRecoveryCode = async () => {
      await stack.browser.clearCookies();
      await page.goto(url('/sign-in'));
      await page.fill('input[name=email]', CARLA.email);
      await page.fill('input[name=password]', CARLA.password);
      await Promise.all([page.waitForURL(url('/sign-in/two-factor')), page.click('button:has-text("Sign in")')]);
      await page.fill('input[name=code]', recoveryCodes[0]!);
      await page.click('button:has-text("Verify")');
      await page.waitForLoadState();
      return new URL(page.url()).pathname;
    };
    expect(await useRecoveryCode()).toBe('/overview');
    await expect(page.locator('.flash').textContent()).resolves.toContain('recovery code');
    expect(await useRecoveryCode()).toBe('/sign-in/two-factor');
  });

  it('once the owner requires it, a member without it must enrol at sign-in before anything else', async () => {
    await signIn(OWNER);
    const requireIt = async () => {
      await page.goto(url('/settings/members'));
      await page.check('input[name=required]');
      await page.click('#require-two-factor-title + form button:has-text("Save")');
      return page.locator('.flash').textContent();
    };
    // an owner without a second factor of their own is told to enrol first (or they would lock themselves out)
    await expect(requireIt()).resolves.toContain('Turn on two-factor sign-in for your own account first');
    await page.goto(url('/settings/account/two-factor'));
    const ownersSecret = (await page.locator('#totp-secret').textContent())!;
    clock += 30_000;
    await page.fill('input[name=code]', codeAt(ownersSecret, clock));
    await Promise.all([page.waitForURL(url('/settings/account')), page.click('button:has-text("Turn on")')]);
    await expect(requireIt()).resolves.toContain('Every member now needs two-factor sign-in');

    await signIn(BEN);
    expect(new URL(page.url()).pathname).toBe('/settings/account/two-factor');
    await expect(page.locator('.page-title p').textContent()).resolves.toContain('Acme requires a second factor of every member');
    await page.goto(url('/messages'));
    expect(new URL(page.url()).pathname).toBe('/settings/account/two-factor');
    const bensSecret = (await page.locator('#totp-secret').textContent())!;
    clock += 30_000;
    await page.fill('input[name=code]', codeAt(bensSecret, clock));
    await Promise.all([page.waitForURL(url('/settings/account')), page.click('button:has-text("Turn on")')]);
    await page.goto(url('/messages'));
    expect(new URL(page.url()).pathname).toBe('/messages');
  });
});
