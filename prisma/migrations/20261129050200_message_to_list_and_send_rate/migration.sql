-- AlterTable
ALTER TABLE "Message" ADD COLUMN     "additionalTo" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "Broadcast" ADD COLUMN     "sendRate" INTEGER;
