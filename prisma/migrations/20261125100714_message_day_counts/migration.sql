-- CreateTable
CREATE TABLE "MessageDayCount" (
    "orgId" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "counts" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "MessageDayCount_pkey" PRIMARY KEY ("orgId","day")
);
