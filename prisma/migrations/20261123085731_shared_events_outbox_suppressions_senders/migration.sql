-- CreateEnum
CREATE TYPE "SuppressionReason" AS ENUM ('bounced', 'complained', 'unsubscribed');

-- CreateEnum
CREATE TYPE "EmailDomainStatus" AS ENUM ('pending', 'verified', 'failed');

-- CreateTable
CREATE TABLE "Event" (
    "id" TEXT NOT NULL,
    "orgId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Event_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OutboxEntry" (
    "id" BIGSERIAL NOT NULL,
    "queue" TEXT NOT NULL,
    "jobId" TEXT NOT NULL,
    "runAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OutboxEntry_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Suppression" (
    "orgId" TEXT NOT NULL,
    "recipient" TEXT NOT NULL,
    "reason" "SuppressionReason" NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Suppression_pkey" PRIMARY KEY ("orgId","recipient")
);

-- CreateTable
CREATE TABLE "EmailDomain" (
    "id" TEXT NOT NULL,
    "orgId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "status" "EmailDomainStatus" NOT NULL DEFAULT 'pending',
    "provider" TEXT NOT NULL,
    "providerDomainId" TEXT,
    "records" JSONB NOT NULL,
    "defaultFromName" TEXT,
    "defaultFromAddress" TEXT,
    "defaultReplyTo" TEXT,
    "verifiedAt" TIMESTAMP(3),
    "lastCheckedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "EmailDomain_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PhoneNumber" (
    "id" TEXT NOT NULL,
    "orgId" TEXT NOT NULL,
    "number" TEXT NOT NULL,
    "friendlyName" TEXT,
    "isDefault" BOOLEAN NOT NULL DEFAULT false,
    "type" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "providerNumberId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "PhoneNumber_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Event_orgId_createdAt_id_idx" ON "Event"("orgId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "OutboxEntry_createdAt_idx" ON "OutboxEntry"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "OutboxEntry_queue_jobId_key" ON "OutboxEntry"("queue", "jobId");

-- CreateIndex
CREATE INDEX "EmailDomain_orgId_createdAt_id_idx" ON "EmailDomain"("orgId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "EmailDomain_orgId_name_key" ON "EmailDomain"("orgId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "PhoneNumber_number_key" ON "PhoneNumber"("number");

-- CreateIndex
CREATE INDEX "PhoneNumber_orgId_createdAt_id_idx" ON "PhoneNumber"("orgId", "createdAt" DESC, "id" DESC);
