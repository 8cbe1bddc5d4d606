// Times the dashboard's delivery overview (getDeliveryOverview: 30 days of counts per day and channel) over
// BENCH_OVERVIEW_ROWS messages (1,000,000 unless set) in one organization, spread over 30 days:
// `npm run bench:overview`. Works in its own database beside DATABASE_URL's (`<name>_bench_overview`, created and
// migrated here). Reports the first view (which counts and keeps the settled days), the median of 7 later views, and
// the median of 7 views that count all 30 days from the messages, so the figures come from the same machine and data.
import './env.ts'; // first: .env fills the environment before anything reads it
import { loadConfig } from '@tidings/config';
import { openDeps } from '@tidings/bootstrap';
import { createOrganization, getDeliveryOverview, type Deps } from '@tidings/core';
import { migrate } from '@tidings/db';

const ROWS = Number(process.env.BENCH_OVERVIEW_ROWS ?? 1_000_000);
const CHUNK = 100_000;
const RUNS = 7;

/** `rows` messages over the last 30 days, half SMS; 90% delivered, 3% bounced, 4% failed, 3% undelivered. */
async function seed({ db }: Deps, orgId: string, rows: number): Promise<void> {
  const stepMs = (30 * 86_400_000) / rows;
  for (let from = 1; from <= rows; from += CHUNK) {
    const to = Math.min(rows, from + CHUNK - 1);
    await db.$executeRaw`
      INSERT INTO "Message" ("id", "orgId", "channelType", "to", "from", "text", "status", "provider", "createdAt", "updatedAt")
      SELECT 'msg_ovw' || lpad(i::text, 10, '0'), ${orgId}, (CASE WHEN i % 2 = 0 THEN 'sms' ELSE 'email' END)::"ChannelType",
             'person' || (i % 50000) || '@example.com', 'hello@acme.test', 'Hello',
             (CASE WHEN i % 100 < 3 THEN 'bounced' WHEN i % 100 < 7 THEN 'failed' WHEN i % 100 < 10 THEN 'undelivered' ELSE 'delivered' END)::"MessageStatus",
             'sandbox', t.at, t.at
      FROM generate_series(${from}::int, ${to}::int) AS i,
           LATERAL (SELECT (now() AT TIME ZONE 'UTC') - i * (${stepMs}::float8 * interval '1 millisecond') AS at) t`;
    console.log(`seeded ${to}/${rows}`);
  }
  // as autovacuum leaves a settled table: the visibility map lets an index-only scan skip the table
  await db.$executeRawUnsafe('VACUUM ANALYZE "Message"');
}

async function medianMs(run: () => Promise<unknown>): Promise<number> {
  await run(); // warms the cache and the connection
  const timings: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const started = performance.now();
    await run();
    timings.push(performance.now() - started);
  }
  return timings.sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;
}

async function main() {
  const base = loadConfig();
  const url = new URL(base.databaseUrl);
  url.pathname = `${url.pathname}_bench_overview`;
  const config = loadConfig({ ...process.env, DATABASE_URL: url.toString(), LOG_LEVEL: 'silent' });
  await migrate(config.databaseUrl);
  const deps = openDeps(config, 'bench');
  try {
    const { organization } = await createOrganization(deps, { name: `overview ${Date.now()}`, mode: 'test' });
    await seed(deps, organization.id, ROWS);
    // the first view counts the settled days once and keeps them; every later view reads those and counts the last few days
    const started = performance.now();
    const overview = await getDeliveryOverview(deps, organization.id);
    const firstView = performance.now() - started;
    if (overview.totals.all.sent + overview.totals.all.failed < ROWS * 0.9) throw new Error(`the overview counted ${JSON.stringify(overview.totals.all)}`);
    const laterViews = await medianMs(() => getDeliveryOverview(deps, organization.id));
    // the same 30 days counted from the messages alone, as a view would without the kept days
    await deps.db.messageDayCount.deleteMany({ where: { orgId: organization.id } });
    const withoutKeptDays = await medianMs(async () => {
      await getDeliveryOverview(deps, organization.id);
      await deps.db.messageDayCount.deleteMany({ where: { orgId: organization.id } });
    });
    console.log(
      JSON.stringify({
        rows: ROWS,
        days: 30,
        ms: { firstView: Math.round(firstView), laterViewsMedian: Math.round(laterViews), withoutKeptDaysMedian: Math.round(withoutKeptDays) },
      }),
    );
    await deps.db.message.deleteMany({ where: { orgId: organization.id } });
    await deps.db.messageDayCount.deleteMany({ where: { orgId: organization.id } });
  } finally {
    await deps.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
