-- By hand: the worker's claim of a delivery wrote "nextAttemptAt", which "WebhookDelivery_status_nextAttemptAt_idx"
-- holds, so every claim added an entry to each of the table's indexes. "claimedUntil" is in none: the claim is a HOT
-- update when its page has room, which the partitions keep from now on (fillfactor 70: pages already full gain it
-- only as they are rewritten). New month partitions get the same (packages/core/src/retention/partitions.ts).
ALTER TABLE "WebhookDelivery" ADD COLUMN "claimedUntil" TIMESTAMP(3);

-- The migrator splits scripts on every semicolon: statements with computed names go through this function.
CREATE FUNCTION tidings_migration_execute(statement text) RETURNS void LANGUAGE plpgsql AS E'BEGIN EXECUTE statement\073 END';
SELECT tidings_migration_execute(format('ALTER TABLE %I SET (fillfactor = 70)', c.relname))
FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = '"WebhookDelivery"'::regclass;
DROP FUNCTION tidings_migration_execute(text);
