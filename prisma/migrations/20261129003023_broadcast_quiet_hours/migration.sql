-- AlterTable
ALTER TABLE "Broadcast" ADD COLUMN     "quietHours" JSONB;
