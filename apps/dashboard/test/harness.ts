import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { serve, type Http2Bindings, type HttpBindings, type ServerType } from '@hono/node-server';
import { createApp } from '@tidings/api';
import { createOrganization, createUser } from '@tidings/core';
import { copyMigratedTemplate, createTestDeps, testDatabaseUrl, waitFor as pollFor, type TestDeps } from '@tidings/testing';
import { Client } from 'pg';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createDashboard } from '../src/app.ts';

/** Polls `read` until `isDone` accepts its value (at most 10 s) and returns it, for state that changes in the background. */
export async function waitFor<T>(read: () => Promise<T>, isDone: (value: T) => boolean): Promise<T> {
  const found = await pollFor(async () => {
    const value = await read();
    return isDone(value) ? { value } : null;
  }, 10_000);
  return found.value;
}

/** Debian's chromium (`CHROMIUM_PATH` points elsewhere) with the flags that work offline and in a container. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

// `npm run screenshots` refreshes the README's pictures; a normal run keeps its pictures out of the checkout.
const screenshotDir = process.env.UPDATE_SCREENSHOTS ? path.resolve(__dirname, '../screenshots') : path.join(os.tmpdir(), 'tidings-dashboard-screenshots');

/** Where a browser test saves the screenshot `name` (the folder exists). */
export function screenshotPath(name: string): string {
  mkdirSync(screenshotDir, { recursive: true });
  return path.join(screenshotDir, `${name}.png`);
}

/** Where a browser test saves a screenshot that docs/ shows: docs/screenshots/ with UPDATE_SCREENSHOTS, else a temporary folder. */
export function docsScreenshotPath(name: string): string {
  const dir = process.env.UPDATE_SCREENSHOTS ? path.resolve(__dirname, '../../../docs/screenshots') : path.join(os.tmpdir(), 'tidings-docs-screenshots');
  mkdirSync(dir, { recursive: true });
  return path.join(dir, `${name}.png`);
}

/**
 * A database of its own, migrated and empty (an "empty install": the first sign-up creates the organization), on the
 * test server: a copy of the checkout's migrated template.
 */
export async function createEmptyDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const { adminUrl, url: testUrl } = testDatabaseUrl();
  const name = `${new URL(testUrl).pathname.slice(1)}_b${randomUUID().slice(0, 8)}`;
  const url = new URL(testUrl);
  url.pathname = `/${name}`;
  const admin = async (sql: string) => {
    const client = new Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await copyMigratedTemplate(adminUrl, name);
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

// the node bindings (the request's socket): the API reads the client's address from them (audit log, rate limits)
type Handler = (request: Request, env: HttpBindings | Http2Bindings) => Response | Promise<Response>;

function listen(fetch: Handler): Promise<{ server: ServerType; url: string }> {
  return new Promise((resolve) => {
    const server = serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => resolve({ server, url: `http://127.0.0.1:${info.port}` }));
  });
}

function close(server: ServerType): Promise<void> {
  // connections held open by the browser would keep server.close() waiting
  (server as Server).closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

export type Stack = {
  deps: TestDeps;
  apiUrl: string;
  dashboardUrl: string;
  browser: BrowserContext;
  close(): Promise<void>;
};

/** The one line a run without the browser prints, instead of a launch failure per test. */
export function missingBrowserMessage(executablePath: string): string {
  return `Chromium not found at ${executablePath}: the dashboard's browser tests need it (apt-get install -y chromium, or set CHROMIUM_PATH)`;
}

/** Opens a headless chromium with a fresh profile; if the launch fails, the profile folder is removed. */
async function launchBrowser(executablePath: string): Promise<{ browser: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'tidings-chromium-'));
  try {
    const browser = await chromium.launchPersistentContext(profile, { executablePath, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 800 } });
    return {
      browser,
      async close() {
        await browser.close();
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}

/**
 * The real API and the real dashboard on port 0 over an empty database and real Redis (the API without its key
 * cache, so a disabled key is refused at once), and a headless chromium with a fresh profile; `env` adds settings.
 * When any part fails to start, the parts already started are closed before the error goes on (so jest can exit).
 * @example const stack = await startStack(); const page = await stack.browser.newPage(); ... await stack.close();
 */
export async function startStack(env: Record<string, string> = {}, { executablePath = CHROMIUM_PATH } = {}): Promise<Stack> {
  // closed in reverse order of opening, on failure as on success
  const opened: (() => Promise<void>)[] = [];
  const closeOpened = async () => {
    for (const closeOne of opened.splice(0).reverse()) await closeOne();
  };
  try {
    // checked first: without a browser nothing else is worth starting
    if (!existsSync(executablePath)) throw new Error(missingBrowserMessage(executablePath));
    const database = await createEmptyDatabase();
    opened.push(() => database.drop());
    // the dashboard listens first: its address is PUBLIC_DASHBOARD_URL, which invitation links name
    let dashboardFetch: (request: Request) => Response | Promise<Response> = () => new Response('starting', { status: 503 });
    const dashboard = await listen((request) => dashboardFetch(request));
    opened.push(() => close(dashboard.server));
    // so does the API: its address is PUBLIC_API_URL, which tracking, unsubscribe and preference links name
    let apiFetch: Handler = () => new Response('starting', { status: 503 });
    const api = await listen((request, env) => apiFetch(request, env));
    opened.push(() => close(api.server));
    const deps = createTestDeps({ DATABASE_URL: database.url, API_KEY_CACHE_TTL_MS: '0', PUBLIC_DASHBOARD_URL: dashboard.url, PUBLIC_API_URL: api.url, ...env });
    opened.push(() => deps.close());
    apiFetch = createApp(deps).fetch;
    dashboardFetch = createDashboard(deps).fetch;
    const browser = await launchBrowser(executablePath);
    opened.push(() => browser.close());
    return { deps, apiUrl: api.url, dashboardUrl: dashboard.url, browser: browser.browser, close: closeOpened };
  } catch (error) {
    await closeOpened();
    throw error;
  }
}

/**
 * Calls the stack's API with `key` and returns the JSON answer; an answer of 300 or more throws with its body.
 * @example const topic = await callApi<Topic>(stack, key, 'POST', '/v1/topics', { name: 'News', defaultSubscription: 'opt_out' });
 */
export async function callApi<T>(stack: Stack, key: string, method: string, urlPath: string, body?: unknown): Promise<T> {
  const res = await fetch(`${stack.apiUrl}${urlPath}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${urlPath}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** A new browser page signed in as `user` (through the sign-in form, as a person does). */
export async function signedInPage(stack: Stack, user: { email: string; password: string }): Promise<Page> {
  const page = await stack.browser.newPage();
  await page.goto(`${stack.dashboardUrl}/sign-in`);
  await page.fill('input[name=email]', user.email);
  await page.fill('input[name=password]', user.password);
  await page.click('button:has-text("Sign in")');
  await page.waitForURL((url) => url.pathname !== '/sign-in');
  return page;
}

/**
 * A new organization with `owner` as its owner, and a page signed in as them.
 * @example ({ orgId, page } = await organizationWithOwner(stack, { name: 'Acme', mode: 'live' }, OWNER));
 */
export async function organizationWithOwner(stack: Stack, org: { name: string; mode: 'live' | 'test' }, owner: { email: string; password: string }) {
  const created = await createOrganization(stack.deps, org);
  await createUser(stack.deps, { orgId: created.organization.id, email: owner.email, password: owner.password, role: 'owner' });
  return { ...created, orgId: created.organization.id, page: await signedInPage(stack, owner) };
}

/**
 * Follows a sandbox email's tracked link opened in `tab`: the tab must show the API's `/c/` page naming `target` (a
 * test message's link is shown, never redirected), and that page's link must lead to `target`.
 * @example const [tab] = await Promise.all([page.waitForEvent('popup'), frame.locator('#cta').click()]); await followShownLink(stack, tab, target);
 */
export async function followShownLink(stack: Stack, tab: Page, target: string): Promise<void> {
  await tab.waitForURL((url) => url.href.startsWith(`${stack.apiUrl}/c/`));
  await Promise.all([tab.waitForURL(target), tab.locator(`a[href="${target}"]`, { hasText: target }).click()]);
}
