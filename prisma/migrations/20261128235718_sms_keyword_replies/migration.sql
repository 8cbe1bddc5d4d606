-- CreateEnum
CREATE TYPE "SmsKeyword" AS ENUM ('stop', 'start', 'help');

-- AlterTable
ALTER TABLE "PhoneNumber" ADD COLUMN     "replies" JSONB NOT NULL DEFAULT '{}';

-- AlterTable
ALTER TABLE "Message" ADD COLUMN     "keywordReply" "SmsKeyword";
