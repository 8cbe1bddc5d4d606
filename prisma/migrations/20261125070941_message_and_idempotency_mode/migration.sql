-- AlterTable
ALTER TABLE "IdempotencyRecord" DROP CONSTRAINT "IdempotencyRecord_pkey",
ADD COLUMN     "mode" "ApiKeyMode" NOT NULL DEFAULT 'live',
ADD CONSTRAINT "IdempotencyRecord_pkey" PRIMARY KEY ("orgId", "mode", "key");

-- AlterTable
ALTER TABLE "WebhookDelivery" ADD COLUMN     "mode" "ApiKeyMode";

-- AlterTable
ALTER TABLE "Message" ADD COLUMN     "mode" "ApiKeyMode" NOT NULL DEFAULT 'live';

-- CreateIndex
CREATE INDEX "Message_orgId_mode_createdAt_id_idx" ON "Message"("orgId", "mode", "createdAt" DESC, "id" DESC);

-- Messages written before the column existed. A broadcast's messages take the broadcast's mode. Any other message
-- the sandbox handled is taken as a test key's, which is how test keys always sent and how sandbox.inbound arrives.
-- An install without provider credentials also sent live keys' messages through the sandbox: those reached nobody,
-- and become test messages here.
UPDATE "Message" m SET "mode" = b."mode" FROM "Broadcast" b WHERE m."broadcastId" = b."id" AND m."mode" <> b."mode";
UPDATE "Message" SET "mode" = 'test' WHERE "provider" = 'sandbox' AND "broadcastId" IS NULL;

-- Deliveries of earlier message and broadcast events take the mode of the resource their event names.
UPDATE "WebhookDelivery" d SET "mode" = m."mode" FROM "Event" e, "Message" m
WHERE e."id" = d."eventId" AND d."eventType" LIKE 'message.%' AND m."id" = e."data"->>'id';
UPDATE "WebhookDelivery" d SET "mode" = b."mode" FROM "Event" e, "Broadcast" b
WHERE e."id" = d."eventId" AND d."eventType" LIKE 'broadcast.%' AND b."id" = e."data"->>'id';
