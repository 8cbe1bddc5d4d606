import { Client } from 'pg';
import { listMigrations, migrate } from '../src/index.ts';
import { recreateScratchDatabase } from '@tidings/testing';

/**
 * Digests of each table's rows (and their count), over the columns it has when first taken: a later migration may add
 * a column (the deliveries' claim) while the rows stay as they were.
 */
function rowDigests(tables: string[]) {
  const columns = new Map<string, string>();
  return async (client: Client) => {
    const digests: Record<string, { h: string; n: number }> = {};
    for (const table of tables) {
      if (!columns.has(table)) {
        const { rows } = await client.query(
          `SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position) AS c FROM information_schema.columns WHERE table_name = $1`,
          [table],
        );
        columns.set(table, rows[0].c);
      }
      digests[table] = (await client.query(`SELECT md5(string_agg(ROW(${columns.get(table)})::text, ',' ORDER BY "id")) AS h, count(*)::int AS n FROM "${table}"`)).rows[0];
    }
    return digests;
  };
}

/** The list query on a partitioned table: the newest three ids of `where`, then the two after `afterId` by keyset. */
async function keysetPages(client: Client, table: string, where: string, afterId: string): Promise<string[][]> {
  const order = `ORDER BY "createdAt" DESC, "id" DESC`;
  const page = await client.query(`SELECT "id" FROM "${table}" WHERE ${where} ${order} LIMIT 3`);
  const next = await client.query(
    `SELECT "id" FROM "${table}" WHERE ${where} AND ("createdAt", "id") < (SELECT "createdAt", "id" FROM "${table}" WHERE "id" = $1) ${order} LIMIT 2`,
    [afterId],
  );
  return [page.rows.map((r) => r.id), next.rows.map((r) => r.id)];
}

// The upgrade of an install with data: migrations up to the one before partitioning, rows written the old way, then
// the partitioning migration; every row is still there, unchanged, and reads and writes work on the new tables.
describe('partitioning migration on a database with data', () => {
  let scratch: string;
  let client: Client;

  beforeAll(async () => {
    scratch = await recreateScratchDatabase('upgrade');
    client = new Client({ connectionString: scratch });
  });
  afterAll(() => client.end());

  const snapshot = rowDigests(['Message', 'MessageStatusEvent']);

  it('keeps every message and event, and the list query, new inserts and broadcast counts work after it', async () => {
    const all = await listMigrations();
    const partitioning = all.find((m) => m.endsWith('_partitions_and_retention'))!;
    const previous = all[all.indexOf(partitioning) - 1]!;
    expect((await migrate(scratch, { through: previous })).applied.at(-1)).toBe(previous);
    await client.connect();

    // 400 messages over the last 200 days in two organizations, a tenth of them a broadcast's, two events each
    await client.query(`
      INSERT INTO "Message" ("id", "orgId", "channelType", "to", "from", "status", "provider", "broadcastId", "contactId", "openedAt", "createdAt", "updatedAt")
      SELECT 'msg_' || lpad(i::text, 6, '0'), 'org_' || (i % 2), 'email', 'to' || i || '@example.com', 'from@example.com',
             CASE WHEN i % 3 = 0 THEN 'delivered' ELSE 'sent' END::"MessageStatus", 'sandbox',
             CASE WHEN i % 10 = 0 THEN 'brd_1' END, 'con_' || i, CASE WHEN i % 20 = 0 THEN now() END,
             now() - make_interval(hours => i * 12), now()
      FROM generate_series(1, 400) AS i`);
    await client.query(`
      INSERT INTO "MessageStatusEvent" ("messageId", "status", "createdAt")
      SELECT "id", s, "createdAt" FROM "Message", unnest(ARRAY['queued', 'sent']::"MessageStatus"[]) AS s ORDER BY "createdAt", s`);
    const before = await snapshot(client);
    expect(before.Message!.n).toBe(400);
    expect(before.MessageStatusEvent!.n).toBe(800);

    expect((await migrate(scratch)).applied).toEqual([partitioning, ...all.slice(all.indexOf(partitioning) + 1)]);

    expect(await snapshot(client)).toEqual(before);
    const partitions = await client.query(`
      SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = '"Message"'::regclass ORDER BY 1`);
    const names = partitions.rows.map((r) => r.name);
    expect(names).toContain('Message_legacy');
    expect(names).toContain('Message_default');
    expect(names.filter((n) => /^Message_\d{4}_\d{2}$/.test(n))).toHaveLength(3);
    expect(partitions.rows.find((r) => r.name === 'Message_legacy')!.bound).toMatch(/^FOR VALUES FROM \(MINVALUE\) TO \('\d{4}-\d{2}-01 00:00:00'\)$/);

    // message.list's keyset query: newest first, the next page after a cursor
    expect(await keysetPages(client, 'Message', `"orgId" = 'org_0'`, 'msg_000006')).toEqual([
      ['msg_000002', 'msg_000004', 'msg_000006'],
      ['msg_000008', 'msg_000010'],
    ]);

    // new rows route by month: a message of two months ahead lands in its own partition, the event id sequence goes on
    await client.query(`
      INSERT INTO "Message" ("id", "orgId", "channelType", "to", "from", "status", "provider", "createdAt", "updatedAt")
      VALUES ('msg_new', 'org_0', 'sms', '+14155550100', '+14155550199', 'queued', 'sandbox', date_trunc('month', now()) + interval '2 month 3 days', now())`);
    const where = await client.query(`SELECT tableoid::regclass::text AS t FROM "Message" WHERE "id" = 'msg_new'`);
    expect(where.rows[0].t).toMatch(/^"Message_\d{4}_\d{2}"$/);
    const event = await client.query(`INSERT INTO "MessageStatusEvent" ("messageId", "status") VALUES ('msg_new', 'queued') RETURNING "id"`);
    expect(Number(event.rows[0].id)).toBe(801);

    // the id sequence belongs to the new table: dropping the legacy partition (what retention does) keeps it
    await client.query(`DROP TABLE "MessageStatusEvent_legacy"`);
    const after = await client.query(`INSERT INTO "MessageStatusEvent" ("messageId", "status") VALUES ('msg_new', 'sent') RETURNING "id"`);
    expect(Number(after.rows[0].id)).toBe(802);

    // a broadcast message can no longer rely on a unique (broadcastId, contactId): the index is there, not unique
    const indexes = await client.query(`SELECT indexdef FROM pg_indexes WHERE tablename = 'Message' AND indexname LIKE 'Message_broadcastId_%'`);
    expect(indexes.rows.map((r) => r.indexdef).join('\n')).not.toMatch(/UNIQUE/);
    expect((await client.query(`SELECT count(*)::int AS n FROM "Message" WHERE "broadcastId" = 'brd_1'`)).rows[0].n).toBe(40);
  });
});

// The same for webhook deliveries and their attempts: an install with 200 days of them, upgraded.
describe('webhook partitioning migration on a database with data', () => {
  let scratch: string;
  let client: Client;

  beforeAll(async () => {
    scratch = await recreateScratchDatabase('upgrade_webhooks');
    client = new Client({ connectionString: scratch });
  });
  afterAll(() => client.end());

  const snapshot = rowDigests(['WebhookDelivery', 'WebhookAttempt']);
  const partitionOf = async (table: string, where: string) => (await client.query(`SELECT tableoid::regclass::text AS t FROM "${table}" WHERE ${where}`)).rows.map((r) => r.t);

  it('keeps every delivery and attempt; lookups, lists, new rows, the unique delivery per event and the cascade work after it', async () => {
    const all = await listMigrations();
    const partitioning = all.find((m) => m.endsWith('_webhook_partitions'))!;
    const previous = all[all.indexOf(partitioning) - 1]!;
    expect((await migrate(scratch, { through: previous })).applied.at(-1)).toBe(previous);
    await client.connect();

    // two endpoints, 300 deliveries over the last 200 days (a delivery's time is its event's), three attempts each
    await client.query(`
      INSERT INTO "Webhook" ("id", "orgId", "url", "events", "secretCiphertext", "updatedAt")
      VALUES ('whk_0', 'org_0', 'https://example.com/0', '{message.sent}', 'x', now()), ('whk_1', 'org_0', 'https://example.com/1', '{message.sent}', 'x', now())`);
    await client.query(`
      INSERT INTO "WebhookDelivery" ("id", "orgId", "webhookId", "eventId", "eventType", "status", "attempts", "createdAt", "updatedAt")
      SELECT 'dlv_' || lpad(i::text, 6, '0'), 'org_0', 'whk_' || (i % 2), 'evt_' || lpad((i / 2)::text, 6, '0'), 'message.sent',
             CASE WHEN i % 7 = 0 THEN 'failed' ELSE 'succeeded' END::"WebhookDeliveryStatus", 3,
             now() - make_interval(hours => (i / 2) * 32), now()
      FROM generate_series(1, 300) AS i`);
    await client.query(`
      INSERT INTO "WebhookAttempt" ("deliveryId", "number", "statusCode", "durationMs", "responseBody", "createdAt")
      SELECT "id", k, CASE WHEN k = 3 THEN 200 ELSE 503 END, 10 * k, 'body ' || k, "createdAt" + make_interval(mins => k)
      FROM "WebhookDelivery", generate_series(1, 3) AS k ORDER BY "createdAt", k`);
    const before = await snapshot(client);
    expect(before.WebhookDelivery!.n).toBe(300);
    expect(before.WebhookAttempt!.n).toBe(900);

    expect((await migrate(scratch)).applied).toEqual([partitioning, ...all.slice(all.indexOf(partitioning) + 1)]);

    expect(await snapshot(client)).toEqual(before);
    for (const table of ['WebhookDelivery', 'WebhookAttempt']) {
      const names = (
        await client.query(`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass`, [`"${table}"`])
      ).rows.map((r) => r.name);
      expect(names.sort()).toEqual([`${table}_default`, `${table}_legacy`, ...names.filter((n) => /_\d{4}_\d{2}$/.test(n))].sort());
      expect(names.filter((n) => /_\d{4}_\d{2}$/.test(n))).toHaveLength(3);
    }

    // a delivery by its id (the job's), with its attempts; an endpoint's newest first, and the page after a cursor
    const one = await client.query(`SELECT "eventId", "status"::text FROM "WebhookDelivery" WHERE "id" = 'dlv_000014'`);
    expect(one.rows).toEqual([{ eventId: 'evt_000007', status: 'failed' }]);
    const attempts = await client.query(`SELECT "number", "statusCode" FROM "WebhookAttempt" WHERE "deliveryId" = 'dlv_000014' ORDER BY "number"`);
    expect(attempts.rows).toEqual([
      { number: 1, statusCode: 503 },
      { number: 2, statusCode: 503 },
      { number: 3, statusCode: 200 },
    ]);
    expect(await keysetPages(client, 'WebhookDelivery', `"webhookId" = 'whk_0'`, 'dlv_000006')).toEqual([
      ['dlv_000002', 'dlv_000004', 'dlv_000006'],
      ['dlv_000008', 'dlv_000010'],
    ]);

    // new rows route by month; the attempt id sequence goes on, and outlives the legacy partition retention drops
    await client.query(`
      INSERT INTO "WebhookDelivery" ("id", "orgId", "webhookId", "eventId", "eventType", "createdAt", "updatedAt")
      VALUES ('dlv_new', 'org_0', 'whk_0', 'evt_new', 'message.sent', date_trunc('month', now()) + interval '2 month 3 days', now())`);
    expect(await partitionOf('WebhookDelivery', `"id" = 'dlv_new'`)).toEqual([expect.stringMatching(/^"WebhookDelivery_\d{4}_\d{2}"$/)]);
    const attempt = await client.query(
      `INSERT INTO "WebhookAttempt" ("deliveryId", "number", "durationMs", "createdAt") SELECT "id", 1, 5, "createdAt" FROM "WebhookDelivery" WHERE "id" = 'dlv_new' RETURNING "id"`,
    );
    expect(Number(attempt.rows[0].id)).toBe(901);
    expect(await partitionOf('WebhookAttempt', `"id" = 901`)).toEqual([expect.stringMatching(/^"WebhookAttempt_\d{4}_\d{2}"$/)]);
    await client.query(`DROP TABLE "WebhookAttempt_legacy"`);
    const after = await client.query(`INSERT INTO "WebhookAttempt" ("deliveryId", "number", "durationMs") VALUES ('dlv_new', 2, 5) RETURNING "id"`);
    expect(Number(after.rows[0].id)).toBe(902);

    // an event goes to an endpoint once: a second delivery of it (at the event's time, as every delivery is) is refused
    for (const id of ['dlv_000014', 'dlv_new']) {
      await expect(
        client.query(
          `INSERT INTO "WebhookDelivery" ("id", "orgId", "webhookId", "eventId", "eventType", "createdAt", "updatedAt")
           SELECT 'dlv_again', "orgId", "webhookId", "eventId", "eventType", "createdAt", now() FROM "WebhookDelivery" WHERE "id" = $1`,
          [id],
        ),
      ).rejects.toThrow(/duplicate key value violates unique constraint "WebhookDelivery_/);
    }

    // deleting an endpoint still takes its deliveries, legacy and new
    await client.query(`DELETE FROM "Webhook" WHERE "id" = 'whk_0'`);
    expect((await client.query(`SELECT count(*)::int AS n FROM "WebhookDelivery" WHERE "webhookId" = 'whk_0'`)).rows[0].n).toBe(0);
    expect((await client.query(`SELECT count(*)::int AS n FROM "WebhookDelivery"`)).rows[0].n).toBe(150);
  });
});
