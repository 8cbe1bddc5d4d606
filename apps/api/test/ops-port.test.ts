import path from 'node:path';
import { createTestDeps, freePort, startHttpService } from '@tidings/testing';

// The API process as operators run it: /metrics only on API_METRICS_PORT, never on the public port.
const deps = createTestDeps();
// the API starts as a process (tsx compiling its sources): on a busy machine that alone can take 30 s
const PROCESS_TEST_TIMEOUT_MS = 120_000;
let server: Awaited<ReturnType<typeof startHttpService>> | undefined;
afterAll(async () => {
  await server?.stop();
  await deps.close();
});

it(
  "serves /metrics on its ops port only: 404 on the public port, 200 with the API's metrics on the ops port",
  async () => {
    const [port, opsPort] = [await freePort(), await freePort()];
    server = await startHttpService(path.resolve(__dirname, '../src/server.ts'), deps.config, { API_PORT: String(port), API_METRICS_PORT: String(opsPort) });

    const api = `http://127.0.0.1:${port}`;
    expect((await fetch(`${api}/healthz`)).status).toBe(200);
    // served here (200, or 503 while a store is slow to answer on a busy machine), unlike /metrics
    expect((await fetch(`${api}/readyz`)).status).not.toBe(404);
    const publicMetrics = await fetch(`${api}/metrics`);
    expect(publicMetrics.status).toBe(404);
    expect(await publicMetrics.text()).not.toMatch(/tidings_/);

    const ops = await fetch(`http://127.0.0.1:${opsPort}/metrics`);
    expect(ops.status).toBe(200);
    // the request to the public port above is counted in the same process's registry
    expect(await ops.text()).toMatch(/tidings_http_request_duration_seconds_count\{method="GET",route="\/healthz",status="200"\} \d+/);
    expect((await fetch(`http://127.0.0.1:${opsPort}/readyz`)).status).not.toBe(404);
  },
  PROCESS_TEST_TIMEOUT_MS,
);
