// Times contact.bulkCreate of 1,000 contacts through the HTTP app (in process, real Postgres and Redis):
// `npm run bench:contacts-bulk [-- runs]`. Works in its own database beside DATABASE_URL's (`<name>_bench`, created
// and migrated here) with a fresh organization per run, so it never touches real data.
import './env.ts'; // first: .env fills the environment before anything reads it
import { loadConfig } from '@tidings/config';
import { makeOrganization, apiClient } from '@tidings/testing';
import { migrate } from '@tidings/db';
import { openDeps } from '@tidings/bootstrap';
import { createApp } from '../apps/api/src/app.ts';
import { thousandContacts } from './phases/contacts.ts';

async function main() {
  const runs = Number(process.argv[2] ?? 5);
  const base = loadConfig();
  const benchUrl = new URL(base.databaseUrl);
  benchUrl.pathname = `${benchUrl.pathname}_bench`;
  const config = loadConfig({ ...process.env, DATABASE_URL: benchUrl.toString(), LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '100000' });
  await migrate(config.databaseUrl);
  const deps = openDeps(config, 'bench');
  const app = createApp(deps);
  const timings: number[] = [];
  try {
    for (let run = 0; run < runs + 1; run += 1) {
      const { key } = await makeOrganization(deps, { name: `bench ${Date.now()}` });
      const api = apiClient(app, key);
      const contacts = thousandContacts(run);
      const started = performance.now();
      const res = await api.post('/v1/contacts/bulk', { contacts });
      const ms = performance.now() - started;
      if (res.status !== 200 || res.body.created.length !== 1000) throw new Error(`unexpected answer ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
      if (run > 0) timings.push(ms); // the first run warms up the JIT and connection pool
    }
  } finally {
    await deps.close();
  }
  timings.sort((a, b) => a - b);
  const median = timings[Math.floor(timings.length / 2)]!;
  console.log(
    `contact.bulkCreate, 1,000 rows over HTTP (in process): median ${median.toFixed(0)} ms, min ${timings[0]!.toFixed(0)} ms, max ${timings.at(-1)!.toFixed(0)} ms over ${timings.length} runs`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
