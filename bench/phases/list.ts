// message.list at scale: BENCH_LIST_ROWS messages in one organization, inserted set-based (INSERT ... SELECT
// generate_series, in chunks so the run shows progress), then GET /v1/messages pages with and without a status filter.
import { createOrganization } from '@tidings/core';
import { load, progress, type Api, type Bench, type LoadResult } from '../harness.ts';

const CHUNK = 100_000;
const LIMIT = 100;
/** Fewer connections than the send run: this is a latency figure, not a saturation one. */
export const LIST_CONNECTIONS = 10;
/** One message in a hundred is `bounced`: the status filter has to find 100 rows among the 1% that match. */
const FILTERED_STATUS = 'bounced';

export async function measureList(bench: Bench, api: Api, rows: number) {
  const { organization, apiKey } = await createOrganization(bench.deps, { name: 'Bench list', mode: 'test' });
  await seedMessages(bench, organization.id, rows);
  const headers = { authorization: `Bearer ${apiKey.key}` };
  const page = (query: string) => `${api.url}/v1/messages?limit=${LIMIT}${query}`;
  for (const url of [page(''), page(`&status=${FILTERED_STATUS}`)]) {
    const res = await fetch(url, { headers });
    const answer = (await res.json()) as { data?: unknown[] };
    if (res.status !== 200 || answer.data?.length !== Math.min(LIMIT, rows)) throw new Error(`list: ${res.status} ${JSON.stringify(answer).slice(0, 300)}`);
  }
  const run = (label: string, url: string): Promise<LoadResult> => {
    progress(`api: GET /v1/messages?limit=${LIMIT}${label} over ${rows} messages, ${LIST_CONNECTIONS} connections, ${bench.seconds} s`);
    return load({ url, method: 'GET', headers, connections: LIST_CONNECTIONS, seconds: bench.seconds });
  };
  const all = await run('', page(''));
  const filtered = await run(`&status=${FILTERED_STATUS}`, page(`&status=${FILTERED_STATUS}`));
  return { all, filtered, limit: LIMIT, filteredStatus: FILTERED_STATUS };
}

/** `rows` delivered emails (1% bounced) of the test key's mode, newest first 10 ms apart, and fresh planner statistics. */
export async function seedMessages({ deps }: Bench, orgId: string, rows: number): Promise<void> {
  for (let from = 1; from <= rows; from += CHUNK) {
    const to = Math.min(rows, from + CHUNK - 1);
    await deps.db.$executeRaw`
      INSERT INTO "Message" ("id", "orgId", "channelType", "to", "from", "subject", "text", "status", "provider", "providerMessageId",
                             "sentAt", "deliveredAt", "createdAt", "updatedAt", "mode")
      SELECT 'msg_list' || lpad(i::text, 10, '0'), ${orgId}, 'email'::"ChannelType", 'person' || (i % 50000) || '@example.com', 'hello@acme.test',
             'Bench ' || i, 'Hello from the benchmark', (CASE WHEN i % 100 = 0 THEN 'bounced' ELSE 'delivered' END)::"MessageStatus",
             'sandbox', 'sandbox_' || i, t.at, t.at, t.at, t.at, 'test'::"ApiKeyMode"
      FROM generate_series(${from}::int, ${to}::int) AS i, LATERAL (SELECT (now() AT TIME ZONE 'UTC') - i * interval '10 milliseconds' AS at) t`;
    progress(`list: seeded ${to}/${rows} messages`);
  }
  await deps.db.$executeRawUnsafe('ANALYZE "Message"');
}
