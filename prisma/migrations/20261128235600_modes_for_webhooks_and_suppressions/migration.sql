-- AlterTable
ALTER TABLE "Suppression" DROP CONSTRAINT "Suppression_pkey",
ADD COLUMN     "mode" "ApiKeyMode" NOT NULL DEFAULT 'live',
ADD CONSTRAINT "Suppression_pkey" PRIMARY KEY ("orgId", "recipient", "mode");

-- AlterTable
ALTER TABLE "Webhook" ADD COLUMN     "mode" "ApiKeyMode" NOT NULL DEFAULT 'live';

-- A test-only organization sends nothing live: its existing endpoints keep receiving its (test) events.
UPDATE "Webhook" w SET "mode" = 'test' FROM "Organization" o WHERE o."id" = w."orgId" AND NOT o."liveKeysAllowed";
