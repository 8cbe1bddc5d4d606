-- AlterTable
ALTER TABLE "Segment" ADD COLUMN     "contactCount" INTEGER,
ADD COLUMN     "countedAt" TIMESTAMP(3);
