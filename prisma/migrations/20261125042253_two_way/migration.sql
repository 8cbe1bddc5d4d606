-- CreateEnum
CREATE TYPE "MessageDirection" AS ENUM ('outbound', 'inbound');

-- CreateEnum
CREATE TYPE "MessageActivity" AS ENUM ('opened', 'clicked', 'complained', 'delayed');

-- AlterEnum
-- This migration adds more than one value to an enum.
-- With PostgreSQL versions 11 and earlier, this is not possible
-- in a single migration. This can be worked around by creating
-- multiple migrations, each migration adding only one value to
-- the enum.


ALTER TYPE "SuppressionReason" ADD VALUE 'stopped';
ALTER TYPE "SuppressionReason" ADD VALUE 'manual';

-- AlterEnum
ALTER TYPE "MessageStatus" ADD VALUE 'received';

-- AlterTable
ALTER TABLE "Suppression" ADD COLUMN     "id" TEXT NOT NULL DEFAULT 'sup_' || replace(gen_random_uuid()::text, '-', '');

-- AlterTable
ALTER TABLE "Message" ADD COLUMN     "clickedAt" TIMESTAMP(3),
ADD COLUMN     "direction" "MessageDirection" NOT NULL DEFAULT 'outbound',
ADD COLUMN     "openedAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "MessageStatusEvent" ADD COLUMN     "activity" "MessageActivity",
ADD COLUMN     "link" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "Suppression_id_key" ON "Suppression"("id");

-- CreateIndex
CREATE INDEX "Suppression_orgId_createdAt_id_idx" ON "Suppression"("orgId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Message_orgId_direction_createdAt_id_idx" ON "Message"("orgId", "direction", "createdAt" DESC, "id" DESC);
