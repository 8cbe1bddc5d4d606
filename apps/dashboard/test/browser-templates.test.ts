// Templates in a real chromium: create, edit with the preview following what is typed (rendered by the core on its
// render threads, shown in a sandboxed frame), save, compare versions, delete.
import { getTemplate } from '@tidings/core';
import { waitFor } from '@tidings/testing';
import type { Page } from 'playwright-core';
import { organizationWithOwner, screenshotPath, startStack, type Stack } from './harness.ts';

const OWNER = { email: 'owner@acme.test', password: 'correct horse battery' };
const WELCOME_HTML = `<div style="max-width:480px;margin:16px auto;padding:24px;border-radius:8px;background:#fff;font-family:Helvetica,Arial,sans-serif">
<h1 id="greeting" style="color:rgb(79, 70, 229);font-size:22px">Welcome to Acme, {{ firstName }}!</h1>
<p style="color:#374151">Your {{ plan }} plan is ready.</p>
</div><script>document.body.setAttribute('data-ran', 'yes'); parent.document.title = 'pwned';</script>`;

let stack: Stack;
let page: Page;
let orgId: string;

beforeAll(async () => {
  stack = await startStack();
  ({ orgId, page } = await organizationWithOwner(stack, { name: 'Acme', mode: 'test' }, OWNER));
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

const shot = (name: string) => page.screenshot({ path: screenshotPath(name), fullPage: true });
const frame = () => page.frameLocator('#preview iframe');
/** The text `read` gives once it shows `expected` (the preview refreshes a moment after typing). */
const textOnceIt = (read: () => Promise<string | null>, expected: string) =>
  waitFor(async () => ((await read())?.includes(expected) ? read() : null), 10_000, `a preview showing ${expected}`);

describe('templates in a browser', () => {
  let templateId = '';

  it('creates an email template and opens its editor with a rendered preview', async () => {
    await page.click('.sidebar a:has-text("Templates")');
    await expect(page.locator('.empty-state h3').textContent()).resolves.toBe('No templates yet');
    await page.fill('input[name=name]', 'welcome-email');
    await page.selectOption('select[name=channelType]', 'email');
    await page.click('button:has-text("Create template")');
    await page.waitForURL(/\/templates\/tpl_/);
    templateId = new URL(page.url()).pathname.split('/')[2]!;
    await expect(frame().locator('p').first().textContent()).resolves.toBe('Hello [firstName],');
    await expect(page.locator('.preview-subject').textContent()).resolves.toBe('Hello [firstName]');
  });

  it('edits the template: the preview follows what is typed, and its script does not run', async () => {
    await page.fill('input[name=subject]', 'Welcome to Acme, {{ firstName }}');
    await page.fill('textarea[name=html]', WELCOME_HTML);
    await page.fill('textarea[name=variables]', JSON.stringify({ firstName: 'Ada', plan: 'Pro' }, null, 2));
    expect(await textOnceIt(() => frame().locator('#greeting').textContent(), 'Ada')).toBe('Welcome to Acme, Ada!');
    await expect(frame().locator('p').textContent()).resolves.toBe('Your Pro plan is ready.');
    expect(await textOnceIt(() => page.locator('.preview-subject').textContent(), 'Ada')).toBe('Welcome to Acme, Ada');
    // inline styles apply (the page allows them for the frame), scripts do not run
    await expect(
      frame()
        .locator('#greeting')
        .evaluate((el) => getComputedStyle(el).color),
    ).resolves.toBe('rgb(79, 70, 229)');
    await expect(frame().locator('body').getAttribute('data-ran')).resolves.toBeNull();
    expect(await page.title()).not.toBe('pwned');
    await expect(page.locator('#preview iframe').getAttribute('sandbox')).resolves.toBe('allow-popups allow-popups-to-escape-sandbox');

    await page.fill('textarea[name=variables]', '{"firstName": "Grace"}');
    expect(await textOnceIt(() => page.locator('#preview .form-error').textContent(), 'plan')).toMatch(/plan/);
    await page.fill('textarea[name=variables]', JSON.stringify({ firstName: 'Grace', plan: 'Team' }));
    expect(await textOnceIt(() => frame().locator('#greeting').textContent(), 'Grace')).toBe('Welcome to Acme, Grace!');
    // the Preview button (what works without the script) renders the same, on a page of its own
    await page.click('button:has-text("Preview")');
    await page.waitForURL(`**/templates/${templateId}/preview`);
    await expect(frame().locator('#greeting').textContent()).resolves.toBe('Welcome to Acme, Grace!');
    await expect(page.locator('textarea[name=variables]').inputValue()).resolves.toBe(JSON.stringify({ firstName: 'Grace', plan: 'Team' }));
    await shot('template-editor');

    await page.click('button:has-text("Save as version 2")');
    await page.waitForURL(`**/templates/${templateId}`);
    await expect(page.locator('.flash').textContent()).resolves.toContain('Saved as version 2.');
    const saved = await getTemplate(stack.deps, orgId, templateId, {});
    expect(saved).toMatchObject({ version: 2, subject: 'Welcome to Acme, {{ firstName }}', variables: ['firstName', 'plan'] });
  });

  it('shows the changes between two versions', async () => {
    await page.click('a:has-text("Version history")');
    await expect(page.locator('#diff-title').textContent()).resolves.toBe('Changes from version 1 to version 2');
    await expect(page.locator('[data-part="Subject"] del').textContent()).resolves.toBe('Hello {{ firstName }}\n');
    await expect(page.locator('[data-part="Subject"] ins').textContent()).resolves.toBe('Welcome to Acme, {{ firstName }}\n');
    await expect(page.locator('[data-part="HTML"] ins').first().textContent()).resolves.toContain('Welcome to Acme, {{ firstName }}!');
    await expect(page.locator('[data-part="Text part"]').count()).resolves.toBe(0); // unchanged, though the browser sent it with CRLF
    await expect(page.locator('tbody tr').count()).resolves.toBe(2);
    await shot('template-versions');
  });

  it('counts the segments of an SMS template as its body grows', async () => {
    await page.click('.sidebar a:has-text("Templates")');
    await page.fill('input[name=name]', 'sign-in-code');
    await page.selectOption('select[name=channelType]', 'sms');
    await page.click('button:has-text("Create template")');
    await page.waitForURL(/\/templates\/tpl_/);
    await page.fill('textarea[name=body]', 'Your Acme code is {{ code }}.');
    await page.fill('textarea[name=variables]', '{"code": "482913"}');
    expect(await textOnceIt(() => page.locator('.sms-bubble').textContent(), '482913')).toBe('Your Acme code is 482913.');
    await expect(page.locator('#sms-segments').textContent()).resolves.toBe('1 segment · GSM-7');
    await page.fill('textarea[name=body]', `Your Acme code is {{ code }}. ${'It expires in 10 minutes. '.repeat(7)}`);
    expect(await textOnceIt(() => page.locator('#sms-segments').textContent(), '2 segments')).toBe('2 segments · GSM-7');
    await page.click('button:has-text("Save as version 2")');
    await page.waitForURL(/\/templates\/tpl_[^/]+$/);
  });

  it('lists the templates, and deletes one after asking', async () => {
    await page.click('.sidebar a:has-text("Templates")');
    await expect(page.locator('tbody tr').count()).resolves.toBe(2);
    await shot('templates-list');
    await page.click('a:has-text("sign-in-code")');
    await page.click('a:has-text("Delete…")');
    await page.click('button:has-text("Delete template")');
    await page.waitForURL((url) => url.pathname === '/templates');
    await expect(page.locator('.flash').textContent()).resolves.toBe('The template “sign-in-code” is deleted.');
    await expect(page.locator('tbody tr').count()).resolves.toBe(1);
  });
});
