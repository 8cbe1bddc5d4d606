import { responseValidatorFor } from './openapi-response-validator.ts';

type Fetcher = { request: (input: string, init?: RequestInit) => Response | Promise<Response> };

export type ApiResponse<T = any> = { status: number; body: T; headers: Headers };

/**
 * Calls an app in process as an API caller would, with a key and JSON. Every answer is checked against the OpenAPI
 * document the app serves (status listed, body matching its schema, no undeclared field): a mismatch fails the
 * test, so the document cannot drift from the code.
 * @example const api = apiClient(app, key); const { status, body } = await api.post('/v1/api-keys', { name: 'ci' });
 */
export function apiClient(app: Fetcher, key?: string) {
  async function call<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const init: RequestInit = { method, headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    const response = await app.request(path, init);
    const text = await response.text();
    const validate = await responseValidatorFor(app);
    validate?.(method, path, response.status, text);
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: tests see the raw text
    }
    return { status: response.status, body: parsed as T, headers: response.headers };
  }
  return {
    call,
    get: <T = any>(path: string, headers?: Record<string, string>) => call<T>('GET', path, undefined, headers),
    post: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => call<T>('POST', path, body, headers),
    patch: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => call<T>('PATCH', path, body, headers),
    put: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => call<T>('PUT', path, body, headers),
    delete: <T = any>(path: string, headers?: Record<string, string>) => call<T>('DELETE', path, undefined, headers),
  };
}
