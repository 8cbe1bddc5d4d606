-- AlterTable
ALTER TABLE "User" ADD COLUMN     "isInstallOperator" BOOLEAN NOT NULL DEFAULT false;
