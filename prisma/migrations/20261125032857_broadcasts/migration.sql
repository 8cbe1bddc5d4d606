-- CreateEnum
CREATE TYPE "BroadcastStatus" AS ENUM ('draft', 'scheduled', 'sending', 'sent', 'canceled');

-- AlterTable
ALTER TABLE "Message" ADD COLUMN     "broadcastId" TEXT;

-- CreateTable
CREATE TABLE "Broadcast" (
    "id" TEXT NOT NULL,
    "orgId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "channelType" "ChannelType" NOT NULL,
    "templateId" TEXT NOT NULL,
    "templateVersion" INTEGER,
    "segmentId" TEXT,
    "from" TEXT,
    "variables" JSONB NOT NULL DEFAULT '{}',
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "mode" "ApiKeyMode" NOT NULL,
    "status" "BroadcastStatus" NOT NULL DEFAULT 'draft',
    "scheduledAt" TIMESTAMP(3),
    "recipientCount" INTEGER NOT NULL DEFAULT 0,
    "suppressedCount" INTEGER NOT NULL DEFAULT 0,
    "unsubscribedCount" INTEGER NOT NULL DEFAULT 0,
    "chunkCount" INTEGER NOT NULL DEFAULT 0,
    "startedAt" TIMESTAMP(3),
    "completedAt" TIMESTAMP(3),
    "canceledAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Broadcast_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BroadcastRecipient" (
    "broadcastId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "contactId" TEXT NOT NULL,

    CONSTRAINT "BroadcastRecipient_pkey" PRIMARY KEY ("broadcastId","position")
);

-- CreateTable
CREATE TABLE "BroadcastChunk" (
    "broadcastId" TEXT NOT NULL,
    "chunk" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BroadcastChunk_pkey" PRIMARY KEY ("broadcastId","chunk")
);

-- CreateIndex
CREATE INDEX "Broadcast_orgId_createdAt_id_idx" ON "Broadcast"("orgId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Broadcast_orgId_status_createdAt_id_idx" ON "Broadcast"("orgId", "status", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "BroadcastRecipient_broadcastId_contactId_key" ON "BroadcastRecipient"("broadcastId", "contactId");

-- By hand (Prisma's schema language has no partial indexes): at most one message per (broadcast, contact), whatever
-- crashes or repeated fan-out jobs happen, and the broadcast's message counts as an index-only aggregate. Both
-- leave out every message that is not a broadcast's, so single sends pay nothing for them.
CREATE UNIQUE INDEX "Message_broadcastId_contactId_key" ON "Message" ("broadcastId", "contactId") WHERE "broadcastId" IS NOT NULL;
CREATE INDEX "Message_broadcastId_status_idx" ON "Message" ("broadcastId", "status") WHERE "broadcastId" IS NOT NULL;
