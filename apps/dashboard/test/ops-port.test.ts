import path from 'node:path';
import { createTestDeps, freePort, startHttpService } from '@tidings/testing';

// The dashboard process as operators run it: its public port is published (through the proxy), so /metrics, which
// tells about traffic, is served on DASHBOARD_METRICS_PORT only.
const deps = createTestDeps();
// the dashboard starts as a process (tsx compiling its sources): on a busy machine that alone can take 30 s
const PROCESS_TEST_TIMEOUT_MS = 120_000;
let server: Awaited<ReturnType<typeof startHttpService>> | undefined;
afterAll(async () => {
  await server?.stop();
  await deps.close();
});

it(
  'serves /metrics on its ops port only: 404 on the public port, 200 with its request metrics on the ops port',
  async () => {
    const [port, opsPort] = [await freePort(), await freePort()];
    server = await startHttpService(path.resolve(__dirname, '../src/server.ts'), deps.config, { DASHBOARD_PORT: String(port), DASHBOARD_METRICS_PORT: String(opsPort) });

    const dashboard = `http://127.0.0.1:${port}`;
    expect((await fetch(`${dashboard}/healthz`)).status).toBe(200);
    const publicMetrics = await fetch(`${dashboard}/metrics`);
    expect(publicMetrics.status).toBe(404);
    expect(await publicMetrics.text()).not.toMatch(/tidings_/);

    const ops = await fetch(`http://127.0.0.1:${opsPort}/metrics`);
    expect(ops.status).toBe(200);
    // the requests to the public port above are counted in the same process's registry
    expect(await ops.text()).toMatch(/tidings_http_request_duration_seconds_count\{method="GET",route="\/healthz",status="200"\} \d+/);
  },
  PROCESS_TEST_TIMEOUT_MS,
);
