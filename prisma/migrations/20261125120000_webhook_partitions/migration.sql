-- By hand, like partitions_and_retention: "WebhookDelivery" and "WebhookAttempt" become tables partitioned by month of
-- "createdAt", their existing tables attached as "<table>_legacy" partitions of everything before next month (an
-- empty one is dropped). No row is copied or rewritten. Under the migration's lock on the legacy tables Postgres
-- builds only what they lack: the (id, "createdAt") keys of both and the deliveries' new unique index (every other
-- index, the foreign key to "Webhook" included, is the legacy table's own, reused as it is attached), and it reads
-- each legacy table once to check it fits its range.
--
-- Each event is delivered once per endpoint: the unique index must contain the partition key, so it is
-- ("eventId", "webhookId", "createdAt"), and a delivery's "createdAt" is its event's (both are the time of the one
-- statement that records the event and fans it out, packages/core/src/events.ts). Deliveries are created nowhere
-- else and an event's time never changes, so for every event the index holds each endpoint once. Leading with
-- "eventId" also lets event retention find an event's deliveries.
--
-- A delivery is found by its id (the job id) through the key (id, "createdAt"): one probe of that index per
-- partition, a few with retention on (the months kept, three empty months ahead, the default).
--
-- "WebhookAttempt"."deliveryId" loses its foreign key (one to a partitioned table needs its whole key, and would
-- block dropping a delivery partition). Attempts are written only by the worker for a delivery it has just loaded,
-- nothing deletes a delivery but retention (a webhook is only ever disabled), and attempts are read only through
-- their delivery, so an attempt whose delivery retention removed is unreachable until it ages out itself.
-- "WebhookDelivery"."webhookId" keeps its foreign key with its cascade: "Webhook" is not partitioned.

-- The migrator splits scripts on every semicolon: statements with computed names or bounds go through this function.
CREATE FUNCTION tidings_migration_execute(statement text) RETURNS void LANGUAGE plpgsql AS E'BEGIN EXECUTE statement\073 END';

ALTER TABLE "WebhookAttempt" DROP CONSTRAINT "WebhookAttempt_deliveryId_fkey";
DROP INDEX "WebhookDelivery_webhookId_eventId_key";
ALTER TABLE "WebhookDelivery" RENAME TO "WebhookDelivery_legacy";
ALTER TABLE "WebhookAttempt" RENAME TO "WebhookAttempt_legacy";
-- A partition's primary key is its parent's: attaching builds the (id, "createdAt") one.
ALTER TABLE "WebhookDelivery_legacy" DROP CONSTRAINT "WebhookDelivery_pkey";
ALTER TABLE "WebhookAttempt_legacy" DROP CONSTRAINT "WebhookAttempt_pkey";

-- Index names are per schema: the legacy tables' move aside for the partitioned tables' own.
SELECT tidings_migration_execute(format('ALTER INDEX %I RENAME TO %I', c.relname, left(regexp_replace(c.relname, '^([A-Za-z]+)_', '\1_legacy_'), 63)))
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid IN ('"WebhookDelivery_legacy"'::regclass, '"WebhookAttempt_legacy"'::regclass);

CREATE TABLE "WebhookDelivery" (LIKE "WebhookDelivery_legacy" INCLUDING DEFAULTS) PARTITION BY RANGE ("createdAt");
ALTER TABLE "WebhookDelivery" ADD CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id", "createdAt");
CREATE UNIQUE INDEX "WebhookDelivery_eventId_webhookId_createdAt_key" ON "WebhookDelivery"("eventId", "webhookId", "createdAt");
CREATE INDEX "WebhookDelivery_webhookId_createdAt_id_idx" ON "WebhookDelivery"("webhookId", "createdAt" DESC, "id" DESC);
CREATE INDEX "WebhookDelivery_webhookId_status_createdAt_id_idx" ON "WebhookDelivery"("webhookId", "status", "createdAt" DESC, "id" DESC);
CREATE INDEX "WebhookDelivery_status_nextAttemptAt_idx" ON "WebhookDelivery"("status", "nextAttemptAt");
CREATE INDEX "WebhookDelivery_createdAt_idx" ON "WebhookDelivery" USING BRIN ("createdAt");
-- Added while the table has no partition, so nothing is checked: the legacy table's own, equal, constraint is taken
-- over as it is attached.
ALTER TABLE "WebhookDelivery" ADD CONSTRAINT "WebhookDelivery_webhookId_fkey" FOREIGN KEY ("webhookId") REFERENCES "Webhook"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "WebhookAttempt" (LIKE "WebhookAttempt_legacy" INCLUDING DEFAULTS) PARTITION BY RANGE ("createdAt");
-- The id sequence must outlive the legacy table, which retention drops.
ALTER SEQUENCE "WebhookAttempt_id_seq" OWNED BY "WebhookAttempt"."id";
ALTER TABLE "WebhookAttempt" ADD CONSTRAINT "WebhookAttempt_pkey" PRIMARY KEY ("id", "createdAt");
CREATE INDEX "WebhookAttempt_deliveryId_number_idx" ON "WebhookAttempt"("deliveryId", "number");
CREATE INDEX "WebhookAttempt_createdAt_idx" ON "WebhookAttempt" USING BRIN ("createdAt");

-- Legacy tables, then monthly partitions up to 3 months ahead (the send-worker's maintenance keeps adding them) and
-- a default partition for a row outside every range.
SELECT tidings_migration_execute(format('ALTER TABLE "WebhookDelivery" ATTACH PARTITION "WebhookDelivery_legacy" FOR VALUES FROM (MINVALUE) TO (%L)', date_trunc('month', now() AT TIME ZONE 'UTC') + interval '1 month'))
WHERE EXISTS (SELECT 1 FROM "WebhookDelivery_legacy");
SELECT tidings_migration_execute('DROP TABLE "WebhookDelivery_legacy"') WHERE NOT EXISTS (SELECT 1 FROM pg_inherits WHERE inhrelid = '"WebhookDelivery_legacy"'::regclass);
SELECT tidings_migration_execute(format('ALTER TABLE "WebhookAttempt" ATTACH PARTITION "WebhookAttempt_legacy" FOR VALUES FROM (MINVALUE) TO (%L)', date_trunc('month', now() AT TIME ZONE 'UTC') + interval '1 month'))
WHERE EXISTS (SELECT 1 FROM "WebhookAttempt_legacy");
SELECT tidings_migration_execute('DROP TABLE "WebhookAttempt_legacy"') WHERE NOT EXISTS (SELECT 1 FROM pg_inherits WHERE inhrelid = '"WebhookAttempt_legacy"'::regclass);
SELECT tidings_migration_execute(format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', t || '_' || to_char(m, 'YYYY_MM'), t, m, m + interval '1 month'))
FROM unnest(ARRAY['WebhookDelivery', 'WebhookAttempt']) AS t,
     generate_series(date_trunc('month', now() AT TIME ZONE 'UTC'), date_trunc('month', now() AT TIME ZONE 'UTC') + interval '3 month', interval '1 month') AS m
WHERE m > now() AT TIME ZONE 'UTC' OR to_regclass(format('%I', t || '_legacy')) IS NULL;
CREATE TABLE "WebhookDelivery_default" PARTITION OF "WebhookDelivery" DEFAULT;
CREATE TABLE "WebhookAttempt_default" PARTITION OF "WebhookAttempt" DEFAULT;

DROP FUNCTION tidings_migration_execute(text);
