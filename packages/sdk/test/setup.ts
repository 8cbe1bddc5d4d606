import { createApp } from '@tidings/api';
import { createTestDeps, makeOrganization, serveHttp, type TestDeps } from '@tidings/testing';
import { Tidings, type TidingsOptions } from '../src/index.ts';

/**
 * The real API (real Postgres and Redis) over real HTTP on a free port, and organizations with an SDK client each.
 * @example const api = await startApi(); const { tidings } = await api.org(); ... afterAll(api.close);
 */
export async function startApi(env: Record<string, string> = {}) {
  const deps: TestDeps = createTestDeps(env);
  const app = createApp(deps);
  const server = await serveHttp(app.fetch);
  const baseUrl = `${server.url}/v1`;
  return {
    deps,
    app,
    server,
    baseUrl,
    async org(options: Partial<TidingsOptions> = {}, orgOptions: { mode?: 'live' | 'test' } = {}) {
      const org = await makeOrganization(deps, orgOptions);
      return { ...org, tidings: new Tidings({ apiKey: org.key, baseUrl, ...options }) };
    },
    async close() {
      await server.close();
      await deps.close();
    },
  };
}

/** A fetch that records every exchange (status and headers), for asserting what went over the wire. */
export function recordingFetch() {
  const exchanges: Array<{ method: string; url: string; headers: Headers; status: number; responseHeaders: Headers }> = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    exchanges.push({
      method: init?.method ?? 'GET',
      url: String(input),
      headers: new Headers(init?.headers),
      status: response.status,
      responseHeaders: response.headers,
    });
    return response;
  };
  return { fetch: fetchImpl, exchanges };
}
