import { Client } from 'pg';
import { listMigrations, migrate } from '../src/index.ts';
import { recreateScratchDatabase } from '@tidings/testing';

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

  const snapshot = async () => ({
    messages: (await client.query(`SELECT md5(string_agg(m::text, ',' ORDER BY m."id")) AS h, count(*)::int AS n FROM "Message" m`)).rows[0],
    events: (await client.query(`SELECT md5(string_agg(e::text, ',' ORDER BY e."id")) AS h, count(*)::int AS n FROM "MessageStatusEvent" e`)).rows[0],
  });

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
    const before = await snapshot();
    expect(before.messages.n).toBe(400);
    expect(before.events.n).toBe(800);

    expect((await migrate(scratch)).applied).toEqual([partitioning, ...all.slice(all.indexOf(partitioning) + 1)]);

    expect(await snapshot()).toEqual(before);
    const partitions = await client.query(`
      SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = '"Message"'::regclass ORDER BY 1`);
    const names = partitions.rows.map((r) => r.name);
    expect(names).toContain('Message_legacy');
    expect(names).toContain('Message_default');
    expect(names.filter((n) => /^Message_\d{4}_\d{2}$/.test(n))).toHaveLength(3);
    expect(partitions.rows.find((r) => r.name === 'Message_legacy')!.bound).toMatch(/^FOR VALUES FROM \(MINVALUE\) TO \('\d{4}-\d{2}-01 00:00:00'\)$/);

    // message.list's keyset query: newest first, the next page after a cursor
    const page = await client.query(`SELECT "id" FROM "Message" WHERE "orgId" = 'org_0' ORDER BY "createdAt" DESC, "id" DESC LIMIT 3`);
    expect(page.rows.map((r) => r.id)).toEqual(['msg_000002', 'msg_000004', 'msg_000006']);
    const next = await client.query(
      `SELECT "id" FROM "Message" WHERE "orgId" = 'org_0' AND ("createdAt", "id") < (SELECT "createdAt", "id" FROM "Message" WHERE "id" = 'msg_000006')
       ORDER BY "createdAt" DESC, "id" DESC LIMIT 2`,
    );
    expect(next.rows.map((r) => r.id)).toEqual(['msg_000008', 'msg_000010']);

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
