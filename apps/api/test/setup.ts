import { createTestDeps, makeOrganization, apiClient, type TestDeps } from '@tidings/testing';
import { createApp } from '../src/app.ts';

/**
 * One app over real Postgres and Redis for a test file, and a way to make organizations with keys.
 * @example const t = await setupApi(); const { api } = await t.org(); ... afterAll(t.close);
 */
export function setupApi(env: Record<string, string> = {}) {
  const deps: TestDeps = createTestDeps(env);
  const app = createApp(deps);
  return {
    deps,
    app,
    anonymous: apiClient(app),
    async org(options: { mode?: 'live' | 'test' } = {}) {
      const org = await makeOrganization(deps, options);
      return { ...org, api: apiClient(app, org.key) };
    },
    close: () => deps.close(),
  };
}
