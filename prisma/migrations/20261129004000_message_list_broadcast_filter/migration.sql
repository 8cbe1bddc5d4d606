-- By hand (Prisma's schema cannot express WHERE): message.list's broadcastId filter is an index range scan in
-- keyset order like its other filters, and messages sent outside a broadcast get no entry.
CREATE INDEX "Message_orgId_broadcastId_createdAt_id_idx" ON "Message"("orgId", "broadcastId", "createdAt" DESC, "id" DESC) WHERE "broadcastId" IS NOT NULL;
