-- AlterTable
ALTER TABLE "Contact" ADD COLUMN     "topics" JSONB NOT NULL DEFAULT '{}';

-- AlterTable
ALTER TABLE "Broadcast" ADD COLUMN     "topicId" TEXT;

-- CreateTable
CREATE TABLE "Topic" (
    "id" TEXT NOT NULL,
    "orgId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "defaultSubscription" TEXT NOT NULL,
    "visibility" TEXT NOT NULL DEFAULT 'public',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Topic_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Topic_orgId_createdAt_id_idx" ON "Topic"("orgId", "createdAt" DESC, "id" DESC);
