import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { operations as declared, resendCompatibleOperations } from '@tidings/contracts';
import { GENERATED_TYPES_PATH } from '../scripts/generate-openapi-types.ts';
import { GENERATED_OPERATIONS_PATH, renderOperationTable } from '../scripts/generate-operations.ts';
import { Tidings } from '../src/index.ts';
import { operations as table } from '../src/operations.generated.ts';
import { startApi } from './setup.ts';

// Each operation is declared once (packages/contracts); the API attaches a handler to it and the SDK calls it by
// operationId. These tests fail when either side has an operation the other does not.

type Recorded = { method: string; path: string };

/** Methods that work locally and call no operation (the receiving side of webhooks). */
const LOCAL_METHODS = new Set(['webhooks.verify']);

/** Calls every method of every resource of a client whose fetch records the request instead of sending it. */
async function recordEveryMethod(): Promise<Map<string, Recorded[]>> {
  let requests: Recorded[] = [];
  const tidings = new Tidings({
    apiKey: 'sk_test_recorder',
    baseUrl: 'http://sdk.invalid/v1',
    maxRetries: 0,
    fetch: async (input, init) => {
      const url = new URL(String(input));
      requests.push({ method: init?.method ?? 'GET', path: url.pathname.replace(/^\/v1/, '') });
      return new Response(JSON.stringify({ data: [], hasMore: false, nextCursor: null }), { status: 200 });
    },
  });
  const byMethod = new Map<string, Recorded[]>();
  for (const [group, resource] of Object.entries(tidings)) {
    if (typeof resource !== 'object' || resource === null || group === 'client') continue;
    const prototype = Object.getPrototypeOf(resource) as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(prototype).filter((n) => n !== 'constructor' && typeof prototype[n] === 'function')) {
      if (LOCAL_METHODS.has(`${group}.${name}`)) continue;
      requests = [];
      // every method takes (id?, params?, options?); placeholder values are enough to see which request it makes
      const result = (resource as Record<string, (...args: unknown[]) => unknown>)[name]('id_1', {}, {});
      if (result && typeof (result as { page?: unknown }).page === 'function') await (result as { page(): Promise<unknown> }).page();
      else await result;
      byMethod.set(`${group}.${name}`, requests);
    }
  }
  return byMethod;
}

/** The operation whose method and path template match a request; a literal segment beats a `{param}` one. */
function operationOf(request: Recorded): string | undefined {
  const candidates = Object.entries(table).filter(([, op]) => {
    const pattern = new RegExp(`^${op.path.replace(/\{\w+\}/g, '[^/]+')}$`);
    return op.method === request.method && pattern.test(request.path);
  });
  candidates.sort(([, a], [, b]) => (a.path.match(/\{/g)?.length ?? 0) - (b.path.match(/\{/g)?.length ?? 0));
  return candidates[0]?.[0];
}

describe('operations declared once', () => {
  it('the SDK table is generated from the current declarations (else: npm run generate -w @tidings/sdk)', () => {
    expect(readFileSync(GENERATED_OPERATIONS_PATH, 'utf8')).toBe(renderOperationTable());
  });

  it("the SDK types are openapi-typescript's reading of the served document (else: npm run generate -w @tidings/sdk)", async () => {
    const api = await startApi();
    try {
      const document = await (await api.app.request('/v1/openapi.json')).json();
      // openapi-typescript runs in a child process: it is ESM underneath, which jest's CommonJS cannot load
      const generated = execFileSync(process.execPath, [require.resolve('tsx/cli'), require.resolve('../scripts/generate-openapi-types.ts'), '--stdout'], {
        input: JSON.stringify(document),
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(readFileSync(GENERATED_TYPES_PATH, 'utf8')).toBe(generated);
    } finally {
      await api.close();
    }
  });

  it('the API serves exactly the declared operations (and the Resend-compatible ones, which the SDK has no method for), with their method and path', async () => {
    const api = await startApi();
    try {
      const document = (await (await api.app.request('/v1/openapi.json')).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
      const served = Object.entries(document.paths).flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, op]) => `${op.operationId} ${method.toUpperCase()} ${path}`),
      );
      const expected = [...declared, ...Object.values(resendCompatibleOperations)].map((op) => `${op.operationId} ${op.method.toUpperCase()} ${op.path}`);
      expect(served.sort()).toEqual(expected.sort());
    } finally {
      await api.close();
    }
  });

  it('every SDK method makes one request of a declared operation, and every declared operation has an SDK method', async () => {
    const byMethod = await recordEveryMethod();
    const called = new Map<string, string>();
    for (const [method, requests] of byMethod) {
      expect({ method, requests: requests.length }).toEqual({ method, requests: 1 });
      const operationId = operationOf(requests[0]);
      expect({ method, operationId }).toEqual({ method, operationId: expect.any(String) });
      called.set(operationId!, method);
    }
    const missing = declared.map((op) => op.operationId).filter((id) => !called.has(id));
    expect(missing).toEqual([]);
    expect(byMethod.size).toBe(declared.length);
  });
});
