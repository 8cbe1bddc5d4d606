import { Client } from 'pg';
import { ulid } from 'ulid';
import { migrate } from '@tidings/db';
import { addMonthPartitions, applyRetention, ensurePartitions, getBroadcast, listPartitions, PROVIDER_EVENT_RETENTION_DAYS, sendMessages } from '@tidings/core';
import { createTestDeps, makeOrganization, recreateScratchDatabase, type TestDeps } from '@tidings/testing';

// Retention on a database of its own (it removes whatever is old, whoever wrote it): 200 days of messages in monthly
// partitions, a few far in the past in the default partition, 200 days of events, webhook deliveries and attempts,
// and idempotency records.
const DAY = 86_400_000;
let scratch: string;
let deps: TestDeps;
let sql: Client;
const at = new Date();
const cutoff = new Date(at.getTime() - 90 * DAY);
const webhookCutoff = new Date(at.getTime() - 30 * DAY);
const utc = (d: Date) => d.toISOString().replace('Z', '');

beforeAll(async () => {
  scratch = await recreateScratchDatabase('retention');
  await migrate(scratch);
  deps = createTestDeps({ DATABASE_URL: scratch });
  sql = new Client({ connectionString: scratch });
  await sql.connect();
});
afterAll(async () => {
  await sql.end();
  await deps.close();
});

describe('retention', () => {
  it('removes exactly what is older than the setting, partitions whole where it can, while sends go on', async () => {
    const { orgId } = await makeOrganization(deps);
    for (const table of ['Message', 'MessageStatusEvent', 'WebhookDelivery', 'WebhookAttempt'] as const) {
      await addMonthPartitions(deps, table, new Date(at.getTime() - 210 * DAY), at);
    }
    // one message every 6 hours for 200 days, every fifth a broadcast's; two just either side of the cutoff; three in
    // 2001, which only the default partition takes
    await sql.query(
      `INSERT INTO "Broadcast" ("id", "orgId", "name", "channelType", "templateId", "mode", "status", "updatedAt")
       VALUES ('brd_old', $1, 'old', 'email', 'tpl_x', 'live', 'sent', now())`,
      [orgId],
    );
    await sql.query(
      `INSERT INTO "Message" ("id", "orgId", "channelType", "to", "from", "status", "provider", "broadcastId", "contactId", "openedAt", "createdAt", "updatedAt")
       SELECT 'msg_old_' || lpad(i::text, 5, '0'), $1, 'email', 'a' || i || '@example.com', 'from@example.com',
              (ARRAY['delivered', 'bounced', 'sent'])[1 + i % 3]::"MessageStatus", 'sandbox',
              CASE WHEN i % 5 = 0 THEN 'brd_old' END, 'con_' || i, CASE WHEN i % 10 = 0 THEN $2::timestamp END, t, t
       FROM (SELECT i, $2::timestamp - make_interval(hours => i * 6) AS t FROM generate_series(1, 800) AS i
             UNION ALL VALUES (900, $3::timestamp - interval '1 millisecond'), (901, $3::timestamp), (902, $3::timestamp + interval '1 millisecond'),
                              (903, '2001-01-01'), (904, '2001-02-01'), (905, '2001-03-01')) AS s`,
      [orgId, utc(at), utc(cutoff)],
    );
    await sql.query(`INSERT INTO "MessageStatusEvent" ("messageId", "status", "createdAt") SELECT "id", "status", "createdAt" FROM "Message" ORDER BY "createdAt"`);
    expect((await sql.query(`SELECT count(*)::int AS n FROM "Message_default"`)).rows[0].n).toBe(3);
    // an event every 12 hours for 200 days; every second one delivered to an endpoint that also takes the sends below,
    // with two attempts an hour apart; the delivery of 100 days ago still pending (its retries ahead)
    await sql.query(
      `INSERT INTO "Webhook" ("id", "orgId", "mode", "url", "events", "secretCiphertext", "updatedAt") VALUES ('whk_r', $1, 'test', 'https://example.com', '{message.queued}', 'x', now())`,
      [orgId],
    );
    const eventTimes = Array.from({ length: 400 }, (_, i) => new Date(at.getTime() - (i + 1) * 12 * 3_600_000));
    await sql.query(`INSERT INTO "Event" ("id", "orgId", "type", "data", "createdAt") SELECT i, $1, 'message.sent', '{}', t FROM unnest($2::text[], $3::timestamp[]) AS u(i, t)`, [
      orgId,
      eventTimes.map((t) => `evt_${ulid(t.getTime())}`),
      eventTimes.map(utc),
    ]);
    await sql.query(
      `INSERT INTO "WebhookDelivery" ("id", "orgId", "webhookId", "eventId", "eventType", "status", "createdAt", "updatedAt")
       SELECT 'dlv_old_' || n, $1, 'whk_r', "id", "type", CASE WHEN n = 200 THEN 'pending' ELSE 'succeeded' END::"WebhookDeliveryStatus", "createdAt", now()
       FROM (SELECT *, row_number() OVER (ORDER BY "createdAt" DESC) AS n FROM "Event" WHERE "orgId" = $1) AS e WHERE n % 2 = 0`,
      [orgId],
    );
    await sql.query(
      `INSERT INTO "WebhookAttempt" ("deliveryId", "number", "durationMs", "createdAt")
       SELECT "id", k, 5, "createdAt" + make_interval(hours => k - 1) FROM "WebhookDelivery", generate_series(1, 2) AS k`,
    );
    const pendingAt = (await sql.query(`SELECT "createdAt" FROM "WebhookDelivery" WHERE "status" = 'pending'`)).rows[0].createdAt;
    expect(pendingAt.getTime()).toBeLessThan(cutoff.getTime());
    await sql.query(
      `INSERT INTO "IdempotencyRecord" ("orgId", "key", "requestHash", "lockedUntil", "expiresAt", "createdAt")
       VALUES ($1, 'expired', 'h', $2::timestamp - interval '2 days', $2::timestamp - interval '1 hour', $2::timestamp - interval '25 hours'),
              ($1, 'live', 'h', $2::timestamp - interval '1 hour', $2::timestamp + interval '1 hour', $2::timestamp - interval '23 hours')`,
      [orgId, utc(at)],
    );

    const expectedMessages = (await sql.query(`SELECT "id" FROM "Message" WHERE "createdAt" >= $1::timestamp ORDER BY "id"`, [utc(cutoff)])).rows.map((r) => r.id);
    expect(expectedMessages).toContain('msg_old_00901');
    expect(expectedMessages).toContain('msg_old_00902');
    const expectedDeliveries = (
      await sql.query(`SELECT "id" FROM "WebhookDelivery" WHERE "createdAt" >= $1::timestamp OR "status" = 'pending' ORDER BY "id"`, [utc(webhookCutoff)])
    ).rows.map((r) => r.id);
    const expectedAttempts = (await sql.query(`SELECT "id" FROM "WebhookAttempt" WHERE "createdAt" >= $1::timestamp ORDER BY "id"`, [utc(webhookCutoff)])).rows.map((r) => r.id);
    const expectedEvents = (
      await sql.query(
        `SELECT "id" FROM "Event" e WHERE "createdAt" >= $1::timestamp OR EXISTS (SELECT 1 FROM "WebhookDelivery" d WHERE d."eventId" = e."id" AND d."id" = ANY($2)) ORDER BY "id"`,
        [utc(cutoff), expectedDeliveries],
      )
    ).rows.map((r) => r.id);
    expect(expectedEvents.length).toBe(180 + 1); // 90 days of them, and the pending delivery's
    const countsBefore = (await getBroadcast(deps, orgId, 'brd_old')).counts;
    expect(countsBefore.delivered + countsBefore.bounced + countsBefore.sent).toBe(162);

    // sends go on throughout, each its own request
    let sending = true;
    const sent: string[] = [];
    const sender = (async () => {
      while (sending) {
        const page = await sendMessages({ deps, orgId, mode: 'test' }, [{ channelType: 'sms', to: '+14155550123', body: `n${sent.length}` }]);
        sent.push(page.data[0]!.id);
      }
    })();
    const report = await applyRetention({ ...deps, now: () => at }, { messageDays: 90, webhookAttemptDays: 30, batchSize: 25 });
    sending = false;
    await sender;

    expect(report.Message!.droppedPartitions.length).toBeGreaterThanOrEqual(2);
    expect(report.Message!.deleted).toBeGreaterThan(3); // the straddling month's older rows, and the 2001 rows
    const left = (await sql.query(`SELECT "id" FROM "Message" WHERE "id" LIKE 'msg_old_%' ORDER BY "id"`)).rows.map((r) => r.id);
    expect(left).toEqual(expectedMessages);
    expect(report.Message!.deleted + report.Message!.droppedRows).toBe(806 - expectedMessages.length);
    expect((await sql.query(`SELECT count(*)::int AS n FROM "MessageStatusEvent" WHERE "createdAt" < $1::timestamp`, [utc(cutoff)])).rows[0].n).toBe(0);
    expect((await sql.query(`SELECT count(*)::int AS n FROM "MessageStatusEvent" WHERE "messageId" LIKE 'msg_old_%'`)).rows[0].n).toBe(expectedMessages.length);
    const partitions = (await listPartitions(deps, 'Message')).filter((p) => !p.isDefault);
    expect(partitions.every((p) => p.to! > cutoff)).toBe(true);

    // every send during the run is there, with its event
    expect(sent.length).toBeGreaterThan(0);
    expect((await sql.query(`SELECT count(*)::int AS n FROM "Message" WHERE "id" = ANY($1)`, [sent])).rows[0].n).toBe(sent.length);
    expect((await sql.query(`SELECT count(DISTINCT "messageId")::int AS n FROM "MessageStatusEvent" WHERE "messageId" = ANY($1)`, [sent])).rows[0].n).toBe(sent.length);

    // the broadcast's figures are whole, though most of its messages are gone
    expect((await sql.query(`SELECT count(*)::int AS n FROM "Message" WHERE "broadcastId" = 'brd_old'`)).rows[0].n).toBeLessThan(162);
    expect((await getBroadcast(deps, orgId, 'brd_old')).counts).toEqual(countsBefore);

    // deliveries and attempts older than 30 days go, whole months dropped, except the pending delivery, whose month
    // is kept (the rest of it deleted); events older than 90 days go unless a delivery is kept; sends still fan out
    const deliveries = (await sql.query(`SELECT "id" FROM "WebhookDelivery" WHERE "id" LIKE 'dlv_old_%' ORDER BY "id"`)).rows.map((r) => r.id);
    expect(deliveries).toEqual(expectedDeliveries);
    expect(report.WebhookDelivery!.droppedPartitions.length).toBeGreaterThanOrEqual(3);
    const oldDeliveryMonths = (await listPartitions(deps, 'WebhookDelivery')).filter((p) => !p.isDefault && p.to! <= webhookCutoff);
    const pendingIn = (await sql.query(`SELECT tableoid::regclass::text AS t FROM "WebhookDelivery" WHERE "status" = 'pending'`)).rows[0].t;
    expect(oldDeliveryMonths.map((p) => `"${p.name}"`)).toEqual([pendingIn]);
    expect((await sql.query(`SELECT "id" FROM "WebhookAttempt" WHERE "deliveryId" LIKE 'dlv_old_%' ORDER BY "id"`)).rows.map((r) => r.id)).toEqual(expectedAttempts);
    expect(report.WebhookAttempt!.droppedPartitions.length).toBeGreaterThanOrEqual(3);
    expect((await listPartitions(deps, 'WebhookAttempt')).filter((p) => !p.isDefault && p.to! <= webhookCutoff)).toEqual([]);
    expect((await sql.query(`SELECT "id" FROM "Event" WHERE "type" = 'message.sent' ORDER BY "id"`)).rows.map((r) => r.id)).toEqual(expectedEvents);
    expect(report.Event!.deleted).toBe(400 - expectedEvents.length);
    const fannedOut = await sql.query(`SELECT count(*)::int AS n FROM "WebhookDelivery" d JOIN "Event" e ON e."id" = d."eventId" WHERE e."data"->>'id' = ANY($1)`, [sent]);
    expect(fannedOut.rows[0].n).toBe(sent.length);
    expect((await sql.query(`SELECT "key" FROM "IdempotencyRecord" WHERE "orgId" = $1`, [orgId])).rows).toEqual([{ key: 'live' }]);

    // progress is in /metrics
    const metrics = await deps.metrics.registry.metrics();
    expect(metrics).toMatch(/tidings_retention_rows_removed_total\{table="Message"\} \d+/);
    expect(metrics).toMatch(/tidings_retention_partitions_dropped_total\{table="Message"\} [1-9]/);
    expect(metrics).toMatch(/tidings_retention_partitions_dropped_total\{table="WebhookDelivery"\} [1-9]/);
    expect(metrics).toMatch(/tidings_retention_rows_removed_total\{table="Event"\} [1-9]/);

    // a second run finds nothing; 0 days keeps everything
    const again = await applyRetention({ ...deps, now: () => at }, { messageDays: 90, webhookAttemptDays: 30 });
    expect(again.Message).toEqual({ deleted: 0, droppedPartitions: [], droppedRows: 0, parentLockMs: 0 });
    for (const table of ['WebhookDelivery', 'WebhookAttempt', 'Event']) expect(again[table]).toMatchObject({ deleted: 0, droppedPartitions: [], droppedRows: 0 });
    const never = await applyRetention({ ...deps, now: () => new Date(at.getTime() + 1000 * DAY) }, { messageDays: 0, webhookAttemptDays: 0 });
    expect(never.Message).toBeUndefined();
    expect((await sql.query(`SELECT count(*)::int AS n FROM "Message" WHERE "id" LIKE 'msg_old_%'`)).rows[0].n).toBe(expectedMessages.length);
  });

  it('forgets provider event ids after PROVIDER_EVENT_RETENTION_DAYS, whatever the other settings', async () => {
    const kept = new Date(at.getTime() - (PROVIDER_EVENT_RETENTION_DAYS * DAY - 60_000));
    const old = new Date(at.getTime() - (PROVIDER_EVENT_RETENTION_DAYS * DAY + 60_000));
    await sql.query(`INSERT INTO "ProviderEvent" ("provider", "eventId", "createdAt") VALUES ('resend', 'msg_kept', $1::timestamp), ('ses', 'old', $2::timestamp)`, [
      utc(kept),
      utc(old),
    ]);
    const report = await applyRetention({ ...deps, now: () => at }, { messageDays: 0, webhookAttemptDays: 0 });
    expect(report.ProviderEvent).toMatchObject({ deleted: 1 });
    expect((await sql.query(`SELECT "eventId" FROM "ProviderEvent"`)).rows).toEqual([{ eventId: 'msg_kept' }]);
  });

  it('adds the months ahead once, moving rows the default partition caught for them', async () => {
    const future = new Date(Date.UTC(at.getUTCFullYear() + 5, 0, 15));
    await sql.query(
      `INSERT INTO "Message" ("id", "orgId", "channelType", "to", "from", "status", "provider", "createdAt", "updatedAt")
       VALUES ('msg_future', 'org_x', 'sms', '+14155550100', '+14155550199', 'queued', 'sandbox', $1::timestamp, now())`,
      [utc(future)],
    );
    expect((await sql.query(`SELECT tableoid::regclass::text AS t FROM "Message" WHERE "id" = 'msg_future'`)).rows[0].t).toBe('"Message_default"');
    const added = await ensurePartitions({ ...deps, now: () => future });
    expect(added.Message).toHaveLength(4);
    expect((await sql.query(`SELECT tableoid::regclass::text AS t FROM "Message" WHERE "id" = 'msg_future'`)).rows[0].t).toBe(`"Message_${future.getUTCFullYear()}_01"`);
    expect((await ensurePartitions({ ...deps, now: () => future })).Message).toEqual([]);
  });
});
