-- CreateTable
CREATE TABLE "BroadcastMessageCount" (
    "broadcastId" TEXT NOT NULL,
    "shard" INTEGER NOT NULL,
    "status" "MessageStatus" NOT NULL,
    "messages" INTEGER NOT NULL DEFAULT 0,
    "opened" INTEGER NOT NULL DEFAULT 0,
    "clicked" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "BroadcastMessageCount_pkey" PRIMARY KEY ("broadcastId","shard","status")
);

-- By hand: the triggers that keep BroadcastMessageCount (Prisma cannot express them). Inserts (a fan-out chunk
-- writes 1,000 messages in one statement) are counted once per statement from the rows written, updates once per
-- row, and only for a broadcast's message whose status, openedAt or clickedAt changed. Deletes are not counted:
-- only retention removes messages, and a broadcast's figures must not shrink with age. Each session adds to its own
-- shard row, in (broadcast, status) order. Message is partitioned: the triggers are on the partitioned table, so they
-- fire for every partition. The function bodies are E'' strings with \x3B for each semicolon: the migration runner
-- splits its file at every semicolon, even inside $$ quotes.
CREATE FUNCTION "broadcast_message_count_add"() RETURNS trigger LANGUAGE plpgsql AS E'
DECLARE
  new_broadcast text\x3B
  new_status "MessageStatus"\x3B
  new_opened int\x3B
  new_clicked int\x3B
BEGIN
  IF TG_LEVEL = ''STATEMENT'' AND TG_OP = ''INSERT'' THEN
    INSERT INTO "BroadcastMessageCount" AS c ("broadcastId", "shard", "status", "messages", "opened", "clicked")
    SELECT "broadcastId", pg_backend_pid() % 16, "status", count(*), count("openedAt"), count("clickedAt")
    FROM new_messages WHERE "broadcastId" IS NOT NULL
    GROUP BY "broadcastId", "status" ORDER BY "broadcastId", "status"
    ON CONFLICT ("broadcastId", "shard", "status") DO UPDATE
      SET "messages" = c."messages" + excluded."messages", "opened" = c."opened" + excluded."opened", "clicked" = c."clicked" + excluded."clicked"\x3B
    RETURN NULL\x3B
  END IF\x3B
  -- a row trigger: the message''s old state leaves its count and its new state joins one, in one statement that
  -- locks the (broadcast, status) rows in order, so two sessions sharing a shard never wait on each other in a cycle
  IF TG_OP = ''UPDATE'' THEN
    new_broadcast := NEW."broadcastId"\x3B
    new_status := NEW."status"\x3B
    new_opened := (NEW."openedAt" IS NOT NULL)::int\x3B
    new_clicked := (NEW."clickedAt" IS NOT NULL)::int\x3B
  END IF\x3B
  INSERT INTO "BroadcastMessageCount" AS c ("broadcastId", "shard", "status", "messages", "opened", "clicked")
  SELECT d.b, pg_backend_pid() % 16, d.s, sum(d.m), sum(d.o), sum(d.k)
  FROM (VALUES (OLD."broadcastId", OLD."status", -1, -(OLD."openedAt" IS NOT NULL)::int, -(OLD."clickedAt" IS NOT NULL)::int),
               (new_broadcast, new_status, 1, new_opened, new_clicked)) AS d(b, s, m, o, k)
  WHERE d.b IS NOT NULL
  GROUP BY d.b, d.s ORDER BY d.b, d.s
  ON CONFLICT ("broadcastId", "shard", "status") DO UPDATE
    SET "messages" = c."messages" + excluded."messages", "opened" = c."opened" + excluded."opened", "clicked" = c."clicked" + excluded."clicked"\x3B
  RETURN NULL\x3B
END ';

-- no message is written between the triggers and the count of those already written
BEGIN;
LOCK TABLE "Message" IN SHARE ROW EXCLUSIVE MODE;

CREATE TRIGGER "Message_broadcast_count_insert" AFTER INSERT ON "Message"
  REFERENCING NEW TABLE AS new_messages FOR EACH STATEMENT EXECUTE FUNCTION "broadcast_message_count_add"();
CREATE TRIGGER "Message_broadcast_count_update" AFTER UPDATE ON "Message" FOR EACH ROW
  WHEN ((OLD."broadcastId" IS NOT NULL OR NEW."broadcastId" IS NOT NULL) AND (OLD."status" IS DISTINCT FROM NEW."status"
    OR (OLD."openedAt" IS NULL) <> (NEW."openedAt" IS NULL) OR (OLD."clickedAt" IS NULL) <> (NEW."clickedAt" IS NULL)
    OR OLD."broadcastId" IS DISTINCT FROM NEW."broadcastId"))
  EXECUTE FUNCTION "broadcast_message_count_add"();

-- the messages already written
INSERT INTO "BroadcastMessageCount" ("broadcastId", "shard", "status", "messages", "opened", "clicked")
SELECT "broadcastId", 0, "status", count(*), count("openedAt"), count("clickedAt")
FROM "Message" WHERE "broadcastId" IS NOT NULL GROUP BY "broadcastId", "status";
COMMIT;
