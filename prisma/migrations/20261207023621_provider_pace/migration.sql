-- AlterTable
ALTER TABLE "PhoneNumber" ADD COLUMN     "messagesPerSecond" DOUBLE PRECISION;

-- AlterTable
ALTER TABLE "Message" ADD COLUMN     "deferredReason" TEXT,
ADD COLUMN     "deferredUntil" TIMESTAMP(3);
