-- CreateTable
CREATE TABLE "ProviderEvent" (
    "provider" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ProviderEvent_pkey" PRIMARY KEY ("provider","eventId")
);

-- CreateIndex
CREATE INDEX "ProviderEvent_createdAt_idx" ON "ProviderEvent"("createdAt");
