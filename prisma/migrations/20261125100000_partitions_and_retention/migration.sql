-- By hand: Prisma's schema language cannot declare partitioning. "Message" and "MessageStatusEvent" become tables
-- partitioned by month of "createdAt" (packages/core/src/retention/partitions.ts names, adds and drops partitions).
--
-- An existing table is not copied: it is renamed to "<table>_legacy" and attached as the partition of everything
-- before next month, so the migration builds only the indexes the legacy rows lack (the (id, "createdAt") key, the
-- broadcast lookup and a BRIN on "createdAt") and never rewrites a row. Retention deletes legacy rows in small
-- batches as they age out and drops the whole table once all of it is older than the setting.
--
-- Postgres wants a partitioned table's primary key to include the partition key, so the keys become
-- (id, "createdAt"). Ids stay unique: they are ULIDs with 80 random bits from a monotonic factory, and no writer
-- reuses one. Foreign keys to a partitioned table must name its whole key, so "MessageStatusEvent"."messageId"
-- loses its foreign key: events are written only beside their message (same statement or transaction) and nothing
-- deletes a message but retention, which removes events by their own age.
--
-- The unique (broadcastId, contactId) of messages cannot stay unique without "createdAt". Its guarantee (one
-- message per contact of a broadcast) is kept by two unpartitioned tables: "BroadcastRecipient" holds a contact once
-- (unique (broadcastId, contactId)), at one position, so in one chunk, and a chunk's messages are inserted in the
-- same statement as its "BroadcastChunk" row, which a repeated chunk job conflicts on and so writes nothing.

-- The migrator splits scripts on every semicolon, so a statement with computed names or bounds goes through this
-- function, whose body spells its semicolon as an escape (\073).
CREATE FUNCTION tidings_migration_execute(statement text) RETURNS void LANGUAGE plpgsql AS E'BEGIN EXECUTE statement\073 END';

-- Messages --------------------------------------------------------------------------------------------------------

ALTER TABLE "MessageStatusEvent" DROP CONSTRAINT "MessageStatusEvent_messageId_fkey";
DROP INDEX "Message_broadcastId_contactId_key";
ALTER TABLE "Message" RENAME TO "Message_legacy";
-- A partition's primary key is its parent's: attaching builds the (id, "createdAt") one.
ALTER TABLE "Message_legacy" DROP CONSTRAINT "Message_pkey";
ALTER TABLE "MessageStatusEvent" DROP CONSTRAINT "MessageStatusEvent_pkey";

-- Index names are per schema: the legacy table's move aside for the partitioned table's own.
SELECT tidings_migration_execute(format('ALTER INDEX %I RENAME TO %I', c.relname, left(regexp_replace(c.relname, '^([A-Za-z]+)_', '\1_legacy_'), 63)))
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid IN ('"Message_legacy"'::regclass, '"MessageStatusEvent"'::regclass);

CREATE TABLE "Message" (LIKE "Message_legacy" INCLUDING DEFAULTS) PARTITION BY RANGE ("createdAt");
ALTER TABLE "Message" ADD CONSTRAINT "Message_pkey" PRIMARY KEY ("id", "createdAt");
CREATE INDEX "Message_orgId_createdAt_id_idx" ON "Message"("orgId", "createdAt" DESC, "id" DESC);
CREATE INDEX "Message_orgId_mode_createdAt_id_idx" ON "Message"("orgId", "mode", "createdAt" DESC, "id" DESC);
CREATE INDEX "Message_orgId_status_createdAt_id_idx" ON "Message"("orgId", "status", "createdAt" DESC, "id" DESC);
CREATE INDEX "Message_orgId_channelType_createdAt_id_idx" ON "Message"("orgId", "channelType", "createdAt" DESC, "id" DESC);
CREATE INDEX "Message_orgId_to_createdAt_id_idx" ON "Message"("orgId", "to", "createdAt" DESC, "id" DESC);
CREATE INDEX "Message_orgId_contactId_createdAt_id_idx" ON "Message"("orgId", "contactId", "createdAt" DESC, "id" DESC);
CREATE INDEX "Message_orgId_templateId_createdAt_id_idx" ON "Message"("orgId", "templateId", "createdAt" DESC, "id" DESC);
CREATE INDEX "Message_orgId_direction_createdAt_id_idx" ON "Message"("orgId", "direction", "createdAt" DESC, "id" DESC);
CREATE INDEX "Message_tags_idx" ON "Message" USING GIN ("tags");
CREATE INDEX "Message_providerMessageId_idx" ON "Message"("providerMessageId");
CREATE INDEX "Message_broadcastId_contactId_idx" ON "Message" ("broadcastId", "contactId") WHERE "broadcastId" IS NOT NULL;
CREATE INDEX "Message_broadcastId_status_idx" ON "Message" ("broadcastId", "status") INCLUDE ("openedAt", "clickedAt") WHERE "broadcastId" IS NOT NULL;
CREATE INDEX "Message_scheduled_scheduledAt_idx" ON "Message" ("scheduledAt", "id") WHERE "status" = 'scheduled';
CREATE INDEX "Message_unfinished_updatedAt_idx" ON "Message" ("updatedAt", "id") WHERE "status" IN ('queued', 'sending');
-- Retention finds rows older than its cutoff in the one partition that straddles it: BRIN costs next to nothing on
-- inserts, which arrive in "createdAt" order.
CREATE INDEX "Message_createdAt_idx" ON "Message" USING BRIN ("createdAt");

-- Status events ---------------------------------------------------------------------------------------------------

ALTER TABLE "MessageStatusEvent" RENAME TO "MessageStatusEvent_legacy";
CREATE TABLE "MessageStatusEvent" (LIKE "MessageStatusEvent_legacy" INCLUDING DEFAULTS) PARTITION BY RANGE ("createdAt");
-- The id sequence must outlive the legacy table, which retention drops.
ALTER SEQUENCE "MessageStatusEvent_id_seq" OWNED BY "MessageStatusEvent"."id";
ALTER TABLE "MessageStatusEvent" ADD CONSTRAINT "MessageStatusEvent_pkey" PRIMARY KEY ("id", "createdAt");
CREATE INDEX "MessageStatusEvent_messageId_id_idx" ON "MessageStatusEvent"("messageId", "id");
CREATE INDEX "MessageStatusEvent_createdAt_idx" ON "MessageStatusEvent" USING BRIN ("createdAt");

-- Webhook deliveries and attempts and expired idempotency records are deleted by age in small batches.
CREATE INDEX "WebhookDelivery_createdAt_idx" ON "WebhookDelivery" USING BRIN ("createdAt");
CREATE INDEX "WebhookAttempt_createdAt_idx" ON "WebhookAttempt" USING BRIN ("createdAt");

-- A legacy table with rows becomes the partition of everything before next month (an empty one is dropped), then
-- monthly partitions up to 3 months ahead (the send-worker's maintenance keeps adding them) and a default partition,
-- which catches a row outside every range (a clock far off) instead of failing its insert.
SELECT tidings_migration_execute(format('ALTER TABLE "Message" ATTACH PARTITION "Message_legacy" FOR VALUES FROM (MINVALUE) TO (%L)', date_trunc('month', now() AT TIME ZONE 'UTC') + interval '1 month'))
WHERE EXISTS (SELECT 1 FROM "Message_legacy");
SELECT tidings_migration_execute('DROP TABLE "Message_legacy"') WHERE NOT EXISTS (SELECT 1 FROM pg_inherits WHERE inhrelid = '"Message_legacy"'::regclass);
SELECT tidings_migration_execute(format('ALTER TABLE "MessageStatusEvent" ATTACH PARTITION "MessageStatusEvent_legacy" FOR VALUES FROM (MINVALUE) TO (%L)', date_trunc('month', now() AT TIME ZONE 'UTC') + interval '1 month'))
WHERE EXISTS (SELECT 1 FROM "MessageStatusEvent_legacy");
SELECT tidings_migration_execute('DROP TABLE "MessageStatusEvent_legacy"') WHERE NOT EXISTS (SELECT 1 FROM pg_inherits WHERE inhrelid = '"MessageStatusEvent_legacy"'::regclass);
SELECT tidings_migration_execute(format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', t || '_' || to_char(m, 'YYYY_MM'), t, m, m + interval '1 month'))
FROM unnest(ARRAY['Message', 'MessageStatusEvent']) AS t,
     generate_series(date_trunc('month', now() AT TIME ZONE 'UTC'), date_trunc('month', now() AT TIME ZONE 'UTC') + interval '3 month', interval '1 month') AS m
WHERE m > now() AT TIME ZONE 'UTC' OR to_regclass(format('%I', t || '_legacy')) IS NULL;
CREATE TABLE "Message_default" PARTITION OF "Message" DEFAULT;
CREATE TABLE "MessageStatusEvent_default" PARTITION OF "MessageStatusEvent" DEFAULT;

DROP FUNCTION tidings_migration_execute(text);
