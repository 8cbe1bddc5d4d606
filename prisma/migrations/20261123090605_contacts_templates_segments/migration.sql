-- CreateTable
CREATE TABLE "Contact" (
    "id" TEXT NOT NULL,
    "orgId" TEXT NOT NULL,
    "email" TEXT,
    "phone" TEXT,
    "firstName" TEXT,
    "lastName" TEXT,
    "attributes" JSONB NOT NULL DEFAULT '{}',
    "emailSubscribed" BOOLEAN NOT NULL DEFAULT true,
    "smsSubscribed" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Contact_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Template" (
    "id" TEXT NOT NULL,
    "orgId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "channelType" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "deletedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Template_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TemplateVersion" (
    "templateId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "subject" TEXT,
    "html" TEXT,
    "text" TEXT,
    "body" TEXT,
    "variables" TEXT[],
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TemplateVersion_pkey" PRIMARY KEY ("templateId","version")
);

-- CreateTable
CREATE TABLE "Segment" (
    "id" TEXT NOT NULL,
    "orgId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "criteria" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Segment_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Contact_orgId_createdAt_id_idx" ON "Contact"("orgId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "Contact_orgId_email_key" ON "Contact"("orgId", "email");

-- CreateIndex
CREATE UNIQUE INDEX "Contact_orgId_phone_key" ON "Contact"("orgId", "phone");

-- CreateIndex
CREATE INDEX "Template_orgId_createdAt_id_idx" ON "Template"("orgId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Segment_orgId_createdAt_id_idx" ON "Segment"("orgId", "createdAt" DESC, "id" DESC);

-- AddForeignKey
ALTER TABLE "TemplateVersion" ADD CONSTRAINT "TemplateVersion_templateId_fkey" FOREIGN KEY ("templateId") REFERENCES "Template"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written (Prisma's schema language cannot say these, and the schema diff ignores them).
-- Emails are unique per organization whatever their case: the API stores them lower-cased, and the database refuses
-- any that is not, so the unique index above is case-insensitive in effect.
ALTER TABLE "Contact" ADD CONSTRAINT "Contact_email_lower_case" CHECK ("email" = lower("email"));

-- Segment criteria compare `attributes.<key>` with dates. A cast that fails would abort the whole query, so this
-- returns NULL (no match) for strings that are not ISO-8601 dates or date-times. It is plain SQL without semicolons
-- because the migrator splits scripts on them. Nested CASEs fix the order: each step runs only once the one before
-- has passed. A time without an offset is UTC.
CREATE FUNCTION tidings_try_timestamptz(value text) RETURNS timestamptz LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN value ~ '^[1-9]\d{3}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)?)?$'
    THEN CASE WHEN extract(day FROM make_date(substr(value, 1, 4)::int, substr(value, 6, 2)::int, 1) + (substr(value, 9, 2)::int - 1)) = substr(value, 9, 2)::int
      THEN CASE WHEN value ~ '(Z|[+-]\d\d:?\d\d)$' THEN value::timestamptz ELSE value::timestamp AT TIME ZONE 'UTC' END
    END
  END
$$
