-- AlterTable
ALTER TABLE "EmailDomain" ADD COLUMN     "clickTracking" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "openTracking" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "Message" ADD COLUMN     "trackClicks" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "trackOpens" BOOLEAN NOT NULL DEFAULT false;
