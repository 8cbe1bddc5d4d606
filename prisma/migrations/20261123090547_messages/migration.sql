-- CreateEnum
CREATE TYPE "ChannelType" AS ENUM ('email', 'sms');

-- CreateEnum
CREATE TYPE "MessageStatus" AS ENUM ('scheduled', 'queued', 'sending', 'sent', 'delivered', 'failed', 'bounced', 'undelivered', 'canceled');

-- CreateTable
CREATE TABLE "Message" (
    "id" TEXT NOT NULL,
    "orgId" TEXT NOT NULL,
    "channelType" "ChannelType" NOT NULL,
    "to" TEXT NOT NULL,
    "from" TEXT NOT NULL,
    "subject" TEXT,
    "text" TEXT,
    "html" TEXT,
    "body" TEXT,
    "templateId" TEXT,
    "templateVersion" INTEGER,
    "contactId" TEXT,
    "status" "MessageStatus" NOT NULL,
    "segments" INTEGER,
    "provider" TEXT NOT NULL,
    "providerMessageId" TEXT,
    "errorCode" TEXT,
    "errorMessage" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "scheduledAt" TIMESTAMP(3),
    "sentAt" TIMESTAMP(3),
    "deliveredAt" TIMESTAMP(3),
    "failedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Message_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MessageStatusEvent" (
    "id" BIGSERIAL NOT NULL,
    "messageId" TEXT NOT NULL,
    "status" "MessageStatus" NOT NULL,
    "errorCode" TEXT,
    "errorMessage" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "MessageStatusEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Message_orgId_createdAt_id_idx" ON "Message"("orgId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Message_orgId_status_createdAt_id_idx" ON "Message"("orgId", "status", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Message_orgId_channelType_createdAt_id_idx" ON "Message"("orgId", "channelType", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Message_orgId_to_createdAt_id_idx" ON "Message"("orgId", "to", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Message_orgId_contactId_createdAt_id_idx" ON "Message"("orgId", "contactId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Message_orgId_templateId_createdAt_id_idx" ON "Message"("orgId", "templateId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Message_tags_idx" ON "Message" USING GIN ("tags");

-- CreateIndex
CREATE INDEX "Message_providerMessageId_idx" ON "Message"("providerMessageId");

-- CreateIndex
CREATE INDEX "MessageStatusEvent_messageId_id_idx" ON "MessageStatusEvent"("messageId", "id");

-- AddForeignKey
ALTER TABLE "MessageStatusEvent" ADD CONSTRAINT "MessageStatusEvent_messageId_fkey" FOREIGN KEY ("messageId") REFERENCES "Message"("id") ON DELETE CASCADE ON UPDATE CASCADE;
