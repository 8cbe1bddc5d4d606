// The browser harness on a machine without a working browser: one clear error, and nothing left open (a launch
// failure used to leave the API and dashboard servers listening, so jest never exited).
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { testDatabaseUrl } from '@tidings/testing';
import { Client } from 'pg';
import { missingBrowserMessage, startStack, waitFor } from './harness.ts';

const listeningServers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'TCPServerWrap').length;

async function stackDatabases(): Promise<string[]> {
  const { adminUrl, name } = testDatabaseUrl();
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${name}_b%`]);
    return rows.map((row) => row.datname);
  } finally {
    await client.end();
  }
}

it('names the missing browser and how to install it, in one line, before starting anything', async () => {
  const missing = path.join(os.tmpdir(), 'no-such-chromium', 'chromium');
  const servers = listeningServers();
  await expect(startStack({}, { executablePath: missing })).rejects.toThrow(
    `Chromium not found at ${missing}: the dashboard's browser tests need it (apt-get install -y chromium, or set CHROMIUM_PATH)`,
  );
  expect(missingBrowserMessage(missing)).not.toContain('\n');
  expect(listeningServers()).toBe(servers);
});

it('closes the servers and drops the database it opened when the browser fails to launch', async () => {
  // a file that exists but is no browser: the launch fails after the database and both servers are up
  const fake = path.join(mkdtempSync(path.join(os.tmpdir(), 'tidings-fake-chromium-')), 'chromium');
  writeFileSync(fake, '#!/bin/sh\nexit 1\n');
  chmodSync(fake, 0o755);
  const servers = listeningServers();
  const databases = await stackDatabases();

  await expect(startStack({}, { executablePath: fake })).rejects.toThrow();

  expect(
    await waitFor(
      async () => listeningServers(),
      (count) => count === servers,
    ),
  ).toBe(servers);
  expect(await stackDatabases()).toEqual(databases);
}, 120_000);
