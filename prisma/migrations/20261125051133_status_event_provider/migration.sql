-- AlterTable
ALTER TABLE "MessageStatusEvent" ADD COLUMN     "provider" TEXT;
