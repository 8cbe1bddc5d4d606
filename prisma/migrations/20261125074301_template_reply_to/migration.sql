-- AlterTable
ALTER TABLE "TemplateVersion" ADD COLUMN     "replyTo" TEXT[] DEFAULT ARRAY[]::TEXT[];
