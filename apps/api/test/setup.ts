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
    /** A client calling with `key`, e.g. a second key made through /v1/api-keys. */
    client: (key: string) => apiClient(app, key),
    async org(options: { mode?: 'live' | 'test' } = {}) {
      const org = await makeOrganization(deps, options);
      return { ...org, api: apiClient(app, org.key) };
    },
    close: () => deps.close(),
  };
}

/** The first number `phoneNumber.searchAvailable` offers for `query`, to buy in a test. */
export async function searchOneNumber(api: ReturnType<typeof apiClient>, query = 'country=US&areaCode=415&limit=1'): Promise<string> {
  const res = await api.get(`/v1/phone-numbers/available?${query}`);
  expect(res.status).toBe(200);
  return res.body.data[0].number as string;
}
