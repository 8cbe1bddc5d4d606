// npm run bench:scale -- [rows=10000000] [dropRows=1000000]: message.list over `rows` messages of one organization
// spread over 12 monthly partitions (the oldest holding `dropRows` of them), then retention dropping that oldest month
// while a writer and a reader run, timing the run and the longest either waited. Prints and writes
// bench/results/scale.json.
import './env.ts'; // first: .env fills the environment before anything reads it
import { addMonthPartitions, applyRetention, createOrganization } from '@tidings/core';
import { load, progress, runPhaseScript, startApi, stopProcess, type Bench } from './harness.ts';

const rows = Number(process.argv[2] ?? process.env.BENCH_SCALE_ROWS ?? 10_000_000);
const dropRows = Number(process.argv[3] ?? process.env.BENCH_SCALE_DROP_ROWS ?? 1_000_000);
const MONTHS = 12;
const CHUNK = 200_000;
const LIMIT = 100;
const CONNECTIONS = 10;
const DAY = 86_400_000;

const monthStart = (at: Date, plus: number) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + plus, 1));

/** `count` delivered emails (1% bounced) evenly between `from` and `to`, in chunks on two connections (a bulk insert
 * keeps one core busy; Postgres has two), showing progress. */
async function seed({ deps }: Bench, orgId: string, label: string, from: Date, to: Date, count: number, offset: number) {
  const step = (to.getTime() - from.getTime()) / count;
  const started = Date.now();
  let next = 1;
  let done = 0;
  const insertChunks = async () => {
    while (next <= count) {
      const first = next;
      const last = Math.min(count, first + CHUNK - 1);
      next = last + 1;
      await deps.db.$executeRaw`
        INSERT INTO "Message" ("id", "orgId", "channelType", "to", "from", "subject", "text", "status", "provider", "providerMessageId",
                               "mode", "sentAt", "deliveredAt", "createdAt", "updatedAt")
        SELECT 'msg_scale' || lpad((i + ${offset}::int)::text, 10, '0'), ${orgId}, 'email'::"ChannelType", 'person' || (i % 50000) || '@example.com',
               'hello@acme.test', 'Bench ' || i, 'Hello from the benchmark', (CASE WHEN i % 100 = 0 THEN 'bounced' ELSE 'delivered' END)::"MessageStatus",
               'sandbox', 'sandbox_' || i, 'test'::"ApiKeyMode", t.at, t.at, t.at, t.at
        FROM generate_series(${first}::int, ${last}::int) AS i,
             LATERAL (SELECT ${from}::timestamptz AT TIME ZONE 'UTC' + (i - 1) * ${step}::float8 * interval '1 millisecond' AS at) t`;
      done += last - first + 1;
      const rate = Math.round(done / ((Date.now() - started) / 1000));
      progress(`scale: ${label} ${done}/${count} messages (${rate}/s, ${Math.round((count - done) / rate)} s left)`);
    }
  };
  await Promise.all([insertChunks(), insertChunks()]);
}

/** Runs `op` in a loop until stopped; returns the longest single run, ms. */
function probe(op: () => Promise<unknown>) {
  let running = true;
  let longest = 0;
  let count = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      await op();
      longest = Math.max(longest, performance.now() - started);
      count++;
    }
  })();
  return async () => {
    running = false;
    await loop;
    return { longestMs: Math.round(longest), runs: count };
  };
}

async function measure(bench: Bench) {
  const { deps } = bench;
  const now = new Date();
  const { organization, apiKey } = await createOrganization(deps, { name: 'Bench scale', mode: 'test' });
  const oldest = monthStart(now, -(MONTHS - 1));
  for (const table of ['Message', 'MessageStatusEvent'] as const) await addMonthPartitions(deps, table, oldest, now);

  const seedStarted = Date.now();
  await seed(bench, organization.id, 'oldest month', oldest, monthStart(now, -(MONTHS - 2)), dropRows, 0);
  await seed(bench, organization.id, 'newer months', monthStart(now, -(MONTHS - 2)), now, rows - dropRows, dropRows);
  const seedSeconds = Math.round((Date.now() - seedStarted) / 1000);
  progress('scale: ANALYZE');
  await deps.db.$executeRawUnsafe('ANALYZE "Message"');
  const partitions = await deps.db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_inherits WHERE inhparent = '"Message"'::regclass`;

  const api = await startApi(bench);
  const headers = { authorization: `Bearer ${apiKey.key}` };
  const page = (query: string) => `${api.url}/v1/messages?limit=${LIMIT}${query}`;
  let list: Record<string, unknown>;
  try {
    for (const url of [page(''), page('&status=bounced')]) {
      const res = await fetch(url, { headers });
      const answer = (await res.json()) as { data?: unknown[] };
      if (res.status !== 200 || answer.data?.length !== LIMIT) throw new Error(`list: ${res.status} ${JSON.stringify(answer).slice(0, 300)}`);
    }
    progress(`scale: GET /v1/messages over ${rows} messages in ${partitions[0]!.n} partitions, ${CONNECTIONS} connections, ${bench.seconds} s`);
    const all = await load({ url: page(''), method: 'GET', headers, connections: CONNECTIONS, seconds: bench.seconds });
    const filtered = await load({ url: page('&status=bounced'), method: 'GET', headers, connections: CONNECTIONS, seconds: bench.seconds });
    list = { all, filtered };
  } finally {
    await stopProcess(api.child);
  }

  // retention whose cutoff lies just past the oldest month: that partition is dropped whole
  const messageDays = Math.floor((now.getTime() - monthStart(now, -(MONTHS - 2)).getTime()) / DAY);
  progress(`scale: retention at ${messageDays} days (drops the oldest month, ${dropRows} messages) while a writer and a reader run`);
  let n = 0;
  const stopWriter = probe(
    () => deps.db.$executeRaw`
      INSERT INTO "Message" ("id", "orgId", "channelType", "to", "from", "status", "provider", "createdAt", "updatedAt")
      VALUES (${`msg_probe${n++}`}, ${organization.id}, 'sms', '+14155550100', '+14155550199', 'queued', 'sandbox', now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC')`,
  );
  const stopReader = probe(() => deps.db.$queryRaw`SELECT "id" FROM "Message" WHERE "orgId" = ${organization.id} ORDER BY "createdAt" DESC, "id" DESC LIMIT ${LIMIT}`);
  const started = performance.now();
  const report = await applyRetention({ ...deps, now: () => now }, { messageDays, webhookAttemptDays: 0 });
  const retentionMs = Math.round(performance.now() - started);
  const writer = await stopWriter();
  const reader = await stopReader();
  return {
    rows,
    partitions: partitions[0]!.n,
    seedSeconds,
    list,
    retention: {
      messageDays,
      ms: retentionMs,
      message: report.Message,
      writerLongestMs: writer.longestMs,
      writes: writer.runs,
      readerLongestMs: reader.longestMs,
      reads: reader.runs,
    },
  };
}

runPhaseScript('scale', { RATE_LIMIT_PER_MINUTE: '100000000' }, async (bench) => ({ scale: await measure(bench) }));
