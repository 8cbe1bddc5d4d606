import { spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { createTestDeps, freePort, makeOrganization, waitFor } from '@tidings/testing';

const deps = createTestDeps();
// each test starts the API as a process (tsx compiling its sources): on a busy machine that alone can take 30 s
const PROCESS_TEST_TIMEOUT_MS = 120_000;
afterAll(() => deps.close());

describe('graceful shutdown', () => {
  it(
    'on SIGTERM finishes the request in flight, refuses new connections, and exits 0',
    async () => {
      const { key, orgId } = await makeOrganization(deps);
      const port = await freePort();
      const server = spawn(process.execPath, ['--import', 'tsx', path.resolve(__dirname, '../src/server.ts')], {
        env: { ...process.env, DATABASE_URL: deps.config.databaseUrl, API_PORT: String(port), LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let logged = '';
      server.stdout!.on('data', (chunk: Buffer) => {
        logged += String(chunk);
      });
      await waitFor(() => logged.includes('listening'), PROCESS_TEST_TIMEOUT_MS, 'the API to listen');

      // a request whose body is still arriving when SIGTERM comes
      const body = JSON.stringify({ name: 'created during shutdown' });
      const response = new Promise<number>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/v1/api-keys',
            // 100-continue: the server's "go on" says it has parsed the request, which is then in flight
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.on('continue', () => {
          server.kill('SIGTERM');
          // the body arrives only once the server has begun to drain
          waitFor(() => logged.includes('shutting down'), 10_000, 'the API to start draining').then(() => req.end(body), reject);
        });
        req.flushHeaders();
      });
      const exitCode = new Promise<number | null>((resolve) => server.once('exit', resolve));

      expect(await response).toBe(201);
      expect(await exitCode).toBe(0);
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
      expect(await deps.db.apiKey.count({ where: { orgId, name: 'created during shutdown' } })).toBe(1);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'a port already in use: exits 1 with one line that says so, not a stack',
    async () => {
      const taken = net.createServer();
      await new Promise<void>((resolve) => taken.listen(0, '0.0.0.0', resolve));
      const port = (taken.address() as net.AddressInfo).port;
      try {
        const server = spawn(process.execPath, ['--import', 'tsx', path.resolve(__dirname, '../src/server.ts')], {
          env: { ...process.env, DATABASE_URL: deps.config.databaseUrl, API_PORT: String(port), LOG_LEVEL: 'silent' },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        server.stderr!.on('data', (chunk: Buffer) => (stderr += String(chunk)));
        const exitCode = await new Promise<number | null>((resolve) => server.once('exit', resolve));
        expect(exitCode).toBe(1);
        expect(stderr.trim().split('\n')).toEqual([`api: port ${port} is already in use (another process listens there)`]);
      } finally {
        taken.close();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'a bad setting: exits 1 naming it',
    async () => {
      const server = spawn(process.execPath, ['--import', 'tsx', path.resolve(__dirname, '../src/server.ts')], {
        env: { ...process.env, DATABASE_URL: deps.config.databaseUrl, API_PORT: 'eighty', LOG_LEVEL: 'silent' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      server.stderr!.on('data', (chunk: Buffer) => (stderr += String(chunk)));
      expect(await new Promise<number | null>((resolve) => server.once('exit', resolve))).toBe(1);
      expect(stderr).toMatch(/^api: Invalid configuration:[\s\S]*API_PORT/);
      expect(stderr).not.toMatch(/\n\s+at /);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
