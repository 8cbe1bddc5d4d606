-- By hand, like the index it replaces: the broadcast's message counts read opens and clicks from the index too, so
-- broadcast.get stays an index-only aggregate now that messages record engagement.
DROP INDEX "Message_broadcastId_status_idx";
CREATE INDEX "Message_broadcastId_status_idx" ON "Message" ("broadcastId", "status") INCLUDE ("openedAt", "clickedAt") WHERE "broadcastId" IS NOT NULL;
