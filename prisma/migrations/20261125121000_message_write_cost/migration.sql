-- By hand: every status change of a message is an UPDATE that writes a new entry into every index of the table
-- (status is indexed, so it is never a HOT update). The indexes for filters on optional values now hold only the
-- rows such a filter can match: an equality filter implies IS NOT NULL, also in a prepared statement's generic
-- plan. On the partitioned parent, so every partition gets them.
DROP INDEX "Message_orgId_contactId_createdAt_id_idx";
CREATE INDEX "Message_orgId_contactId_createdAt_id_idx" ON "Message"("orgId", "contactId", "createdAt" DESC, "id" DESC) WHERE "contactId" IS NOT NULL;

DROP INDEX "Message_orgId_templateId_createdAt_id_idx";
CREATE INDEX "Message_orgId_templateId_createdAt_id_idx" ON "Message"("orgId", "templateId", "createdAt" DESC, "id" DESC) WHERE "templateId" IS NOT NULL;

-- a message has the provider's id once sent: its claim adds no entry here
DROP INDEX "Message_providerMessageId_idx";
CREATE INDEX "Message_providerMessageId_idx" ON "Message"("providerMessageId") WHERE "providerMessageId" IS NOT NULL;
