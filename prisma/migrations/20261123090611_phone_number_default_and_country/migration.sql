-- AlterTable
ALTER TABLE "PhoneNumber" ADD COLUMN     "country" TEXT;

-- CreateIndex
CREATE INDEX "EmailDomain_status_lastCheckedAt_idx" ON "EmailDomain"("status", "lastCheckedAt");

-- Written by hand (Prisma's schema cannot express a partial index): at most one default number per organization,
-- enforced by the database so two concurrent updates can never leave two defaults.
CREATE UNIQUE INDEX "PhoneNumber_orgId_default_key" ON "PhoneNumber"("orgId") WHERE "isDefault";
