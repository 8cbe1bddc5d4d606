-- AlterTable
ALTER TABLE "Organization" ADD COLUMN     "smsCountries" JSONB;

-- CreateTable
CREATE TABLE "Verification" (
    "id" TEXT NOT NULL,
    "orgId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "channelType" TEXT NOT NULL,
    "to" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "codeLength" INTEGER NOT NULL,
    "codeSeed" TEXT NOT NULL,
    "codeHash" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "sendAttempts" INTEGER NOT NULL,
    "checkAttempts" INTEGER NOT NULL DEFAULT 0,
    "messageIds" TEXT[],
    "sentAt" TIMESTAMP(3)[],
    "country" TEXT,
    "prefix" TEXT,
    "approvedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Verification_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Verification_orgId_createdAt_id_idx" ON "Verification"("orgId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Verification_orgId_to_createdAt_idx" ON "Verification"("orgId", "to", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Verification_prefix_createdAt_idx" ON "Verification"("prefix", "createdAt");
