// npm run bench:replica-list -- [rows=1000000]: message.list (pages of 100) served by a streaming replica of the
// local Postgres (127.0.0.1:5433, started and removed here, as `npm run test:replica` does) over `rows` messages of one
// organization, while the primary takes message.send through the same API and a send-worker drains them. Prints and
// writes bench/results/replica-list.json: the list's p99 from the replica, the sends per second meanwhile.
import './env.ts'; // first: .env fills the environment before anything reads it
import { addMonthPartitions, createOrganization } from '@tidings/core';
import pg from 'pg';
import { startReplica } from '../tests/replica/servers.ts';
import { load, progress, runPhaseScript, startApi, startProcess, stopProcess, type Bench } from './harness.ts';

const rows = Number(process.argv[2] ?? process.env.BENCH_REPLICA_ROWS ?? 1_000_000);
const CHUNK = 50_000;
const LIMIT = 100;
const CONNECTIONS = 10;
const DAY = 86_400_000;

/** `rows` delivered emails of the organization over the last 20 days, in chunks of one statement each. */
async function seed({ deps }: Bench, orgId: string) {
  const now = new Date();
  await addMonthPartitions(deps, 'Message', new Date(now.getTime() - 20 * DAY), now);
  const step = (20 * DAY) / rows;
  const from = new Date(now.getTime() - 20 * DAY);
  for (let first = 1; first <= rows; first += CHUNK) {
    const last = Math.min(rows, first + CHUNK - 1);
    await deps.db.$executeRaw`
      INSERT INTO "Message" ("id", "orgId", "channelType", "to", "from", "subject", "text", "status", "provider", "mode", "sentAt", "createdAt", "updatedAt")
      SELECT 'msg_replica' || lpad(i::text, 10, '0'), ${orgId}, 'email'::"ChannelType", 'person' || (i % 50000) || '@example.com', 'hello@acme.test',
             'Bench ' || i, 'Hello from the benchmark', 'delivered'::"MessageStatus", 'sandbox', 'test'::"ApiKeyMode", t.at, t.at, t.at
      FROM generate_series(${first}::int, ${last}::int) AS i,
           LATERAL (SELECT ${from}::timestamptz AT TIME ZONE 'UTC' + (i - 1) * ${step}::float8 * interval '1 millisecond' AS at) t`;
    progress(`replica-list: ${last}/${rows} messages`);
  }
  await deps.db.$executeRawUnsafe('ANALYZE "Message"');
}

/** Index scans of the Message partitions the replica ran itself: only reads sent to it move them. */
async function replicaScans(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const {
      rows: [row],
    } = await client.query<{ scans: string }>(`SELECT coalesce(sum(idx_scan), 0)::text AS scans FROM pg_stat_user_tables WHERE relname LIKE 'Message%'`);
    return Number(row!.scans);
  } finally {
    await client.end();
  }
}

async function measure(bench: Bench) {
  const { organization, apiKey } = await createOrganization(bench.deps, { name: 'Bench replica list', mode: 'test' });
  await seed(bench, organization.id);
  const admin = new URL(bench.env.DATABASE_URL!);
  admin.pathname = '/postgres';
  progress('replica-list: pg_basebackup of the primary into a replica on 127.0.0.1:5433');
  const replica = await startReplica(admin.toString());
  const replicaUrl = replica.urlOf(bench.env.DATABASE_URL!);
  bench.env.DATABASE_READ_URL = replicaUrl;
  delete bench.env.DATABASE_STATEMENT_TIMEOUT_MS;
  const api = await startApi(bench);
  const worker = startProcess('send-worker', 'apps/send-worker/src/worker.ts', { ...bench.env, REDIS_PREFIX: bench.prefix('api') });
  const headers = { authorization: `Bearer ${apiKey.key}` };
  try {
    const scansBefore = await replicaScans(replicaUrl);
    progress(`replica-list: GET /v1/messages over ${rows} messages from the replica while POST /v1/messages runs, ${CONNECTIONS} connections each, ${bench.seconds} s`);
    const [list, send] = await Promise.all([
      load({ url: `${api.url}/v1/messages?limit=${LIMIT}`, method: 'GET', headers, connections: CONNECTIONS, seconds: bench.seconds }),
      load({
        url: `${api.url}/v1/messages`,
        headers,
        body: JSON.stringify({ channelType: 'email', to: 'someone@example.com', subject: 'Bench', text: 'Hello' }),
        connections: CONNECTIONS,
        seconds: bench.seconds,
      }),
    ]);
    // a backend reports its counters within seconds
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const replicaIndexScans = (await replicaScans(replicaUrl)) - scansBefore;
    return { rows, list, send, replicaIndexScans };
  } finally {
    await Promise.all([stopProcess(api.child), stopProcess(worker)]);
    await replica.remove();
  }
}

// the runner's own seeding statements run without a timeout on a busy machine; the API keeps its own
runPhaseScript('replica-list', { RATE_LIMIT_PER_MINUTE: '100000000', DATABASE_STATEMENT_TIMEOUT_MS: '0' }, async (bench) => ({ replicaList: await measure(bench) }));
