import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { createTestDeps, freePort, makeOrganization } from '@tidings/testing';

const deps = createTestDeps();
afterAll(() => deps.close());

describe('graceful shutdown', () => {
  it('on SIGTERM finishes the request in flight, refuses new connections, and exits 0', async () => {
    const { key, orgId } = await makeOrganization(deps);
    const port = await freePort();
    const server = spawn(process.execPath, ['--import', 'tsx', path.resolve(__dirname, '../src/server.ts')], {
      env: { ...process.env, DATABASE_URL: deps.config.databaseUrl, API_PORT: String(port), LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve) => server.stdout!.on('data', (chunk: Buffer) => String(chunk).includes('listening') && resolve()));

    // a request whose body is still arriving when SIGTERM comes
    const body = JSON.stringify({ name: 'created during shutdown' });
    const response = new Promise<number>((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port, method: 'POST', path: '/v1/api-keys', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 5));
      setTimeout(() => {
        server.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(5)), 300);
      }, 200);
    });
    const exitCode = new Promise<number | null>((resolve) => server.once('exit', resolve));

    expect(await response).toBe(201);
    expect(await exitCode).toBe(0);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    expect(await deps.db.apiKey.count({ where: { orgId, name: 'created during shutdown' } })).toBe(1);
  });
});
