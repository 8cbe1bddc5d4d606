-- The sweep for messages whose job was lost (Redis restarted without its data) reads only unfinished messages,
-- through partial indexes that stay small and cost nothing for messages past `sending`. They are not in
-- schema.prisma: Prisma's schema language has no partial indexes, and nothing there refers to them.
CREATE INDEX "Message_unfinished_updatedAt_idx" ON "Message" ("updatedAt", "id") WHERE "status" IN ('queued', 'sending');
CREATE INDEX "Message_scheduled_scheduledAt_idx" ON "Message" ("scheduledAt", "id") WHERE "status" = 'scheduled';
