-- AlterTable
ALTER TABLE "Organization" ADD COLUMN     "liveKeysAllowed" BOOLEAN NOT NULL DEFAULT true;
