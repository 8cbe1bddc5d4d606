// The dashboard's /healthz and /readyz, and the request metrics its process serves on its ops port (server.ts),
// with real Postgres and Redis.
import { createUser } from '@tidings/core';
import { createTestDeps, makeOrganization, sampleValue } from '@tidings/testing';
import { createDashboard } from '../src/app.ts';
import { dashboardClient } from './client.ts';

const deps = createTestDeps();
const app = createDashboard(deps);
afterAll(() => deps.close());

describe('dashboard operations endpoints', () => {
  it('counts page requests by route pattern and status, with process metrics, and serves none of it publicly', async () => {
    const { orgId } = await makeOrganization(deps);
    const email = `metrics-${Date.now()}@dashboard.test`;
    await createUser(deps, { orgId, email, password: 'a good long password', role: 'owner' });
    const browser = dashboardClient(app);
    expect((await browser.signIn(email, 'a good long password')).status).toBe(303);
    expect((await browser.get('/settings/api-keys')).status).toBe(200);
    expect((await browser.get('/no-such-page')).status).toBe(404);

    const publicMetrics = await app.request('/metrics');
    expect(publicMetrics.status).toBe(404);
    expect(await publicMetrics.text()).not.toMatch(/tidings_/);
    const text = await deps.metrics.registry.metrics(); // what the ops port serves
    const requests = (method: string, route: string, status: string) => sampleValue(text, 'tidings_http_request_duration_seconds_count', { method, route, status });
    expect(requests('GET', '/sign-in', '200')).toBe(1); // signIn() fetches the form first
    expect(requests('POST', '/sign-in', '303')).toBe(1);
    expect(requests('GET', '/settings/api-keys', '200')).toBe(1);
    // an unknown path is counted under a pattern, never its own path: labels stay few
    expect(text).not.toContain('no-such-page');
    expect(sampleValue(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(sampleValue(text, 'tidings_queue_jobs', { queue: 'email', state: 'waiting' })).toBe(0);
  });

  it('/healthz and /readyz answer without a session, and every response carries X-Request-Id', async () => {
    const health = await app.request('/healthz');
    expect(await health.json()).toEqual({ status: 'ok' });
    expect(health.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const ready = await app.request('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok' } });
  });
});
