import { createApp } from '@tidings/api';
import { createTestDeps, makeOrganization, responseValidatorFor, serveHttp, type TestDeps } from '@tidings/testing';
import { Tidings, TidingsError, type TidingsOptions } from '../src/index.ts';

/**
 * The real API (real Postgres and Redis) over real HTTP on a free port, and organizations with an SDK client each.
 * @example const api = await startApi(); const { tidings } = await api.org(); ... afterAll(api.close);
 */
export async function startApi(env: Record<string, string> = {}) {
  const deps: TestDeps = createTestDeps(env);
  const app = createApp(deps);
  const server = await serveHttp(app.fetch);
  const baseUrl = `${server.url}/v1`;
  /** Wraps a fetch so that every answer the SDK gets is checked against the app's OpenAPI document. */
  const validating =
    (inner: typeof fetch = fetch): typeof fetch =>
    async (input, init) => {
      const response = await inner(input, init);
      // the SDK passes a URL and init; openapi-fetch a Request
      const [url, method] = input instanceof Request ? [new URL(input.url), input.method] : [new URL(String(input)), init?.method ?? 'GET'];
      // looked up per call (cached per app), so routes a test adds before its first call are in place first
      const check = await responseValidatorFor(app);
      if (url.origin === server.url) check?.(method, url.pathname, response.status, await response.clone().text());
      return response;
    };
  return {
    validating,
    deps,
    app,
    server,
    baseUrl,
    async org(options: Partial<TidingsOptions> = {}, orgOptions: { mode?: 'live' | 'test' } = {}) {
      const org = await makeOrganization(deps, orgOptions);
      return { ...org, tidings: new Tidings({ apiKey: org.key, baseUrl, ...options, fetch: validating(options.fetch) }) };
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

/** Awaits a call that must fail, and returns its TidingsError. */
export async function caught(promise: Promise<unknown>): Promise<TidingsError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TidingsError);
  return error as TidingsError;
}
