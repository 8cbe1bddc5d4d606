import { Prisma } from '@tidings/db';

const sqlIso = (column: string) => `to_char(m."${column}", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** `toMessage` in SQL, field by field in its order, over a row aliased `m` (test/message-json.test.ts holds the two equal). */
const MESSAGE_FIELDS: [name: string, sql: string][] = [
  ...['id', 'channelType', 'direction', 'to'].map((name): [string, string] => [name, `m."${name}"`]),
  ['toAll', `array_prepend(m."to", coalesce(m."additionalTo", '{}'))`],
  ['from', 'm."from"'],
  ...['cc', 'bcc', 'replyTo'].map((name): [string, string] => [name, `m."${name}"`]),
  ['headers', `coalesce(m."headers", '{}'::jsonb)`],
  ...['subject', 'text', 'html', 'body'].map((name): [string, string] => [name, `m."${name}"`]),
  ['mediaUrls', 'm."mediaUrls"'],
  [
    'attachments',
    // most messages have none: the subquery per row was a fifth of a list page's time in Postgres
    `CASE WHEN m."attachments" = '[]'::jsonb THEN m."attachments" ELSE (SELECT coalesce(jsonb_agg(jsonb_build_object('id', a->'id', 'filename', a->'filename', 'contentType', a->'contentType',
    'size', a->'size', 'contentId', a->'contentId') ORDER BY n), '[]'::jsonb) FROM jsonb_array_elements(m."attachments") WITH ORDINALITY AS x(a, n)) END`,
  ],
  ...['templateId', 'templateVersion', 'contactId', 'broadcastId', 'status', 'segments', 'provider', 'mode', 'providerMessageId'].map((name): [string, string] => [
    name,
    `m."${name}"`,
  ]),
  ['error', `CASE WHEN m."errorCode" IS NULL THEN NULL ELSE jsonb_build_object('code', m."errorCode", 'message', coalesce(m."errorMessage", '')) END`],
  ['attempts', 'm."attempts"'],
  ['tags', 'm."tags"'],
  ['metadata', `coalesce(m."metadata", '{}'::jsonb)`],
  ['scheduledAt', sqlIso('scheduledAt')],
  // shown only while the message is still on its way (see toMessage)
  ['deferredUntil', `CASE WHEN m."status" IN ('scheduled', 'queued', 'sending') THEN ${sqlIso('deferredUntil')} END`],
  ['deferredReason', `CASE WHEN m."status" IN ('scheduled', 'queued', 'sending') AND m."deferredUntil" IS NOT NULL THEN m."deferredReason" END`],
  ...['sentAt', 'deliveredAt', 'failedAt', 'openedAt', 'clickedAt', 'createdAt', 'updatedAt'].map((name): [string, string] => [name, sqlIso(name)]),
];

/** The message as a jsonb value, for statements that change a message and record its event in one go. */
export const messageJsonSql = Prisma.raw(`jsonb_build_object(${MESSAGE_FIELDS.map(([name, sql]) => `'${name}', ${sql}`).join(', ')})`);

/**
 * The message as columns named like its fields, for `row_to_json` over them: JSON text with `toMessage`'s key order,
 * which a list can hand to the client as it is.
 */
export const messageColumnsSql = Prisma.raw(MESSAGE_FIELDS.map(([name, sql]) => `${sql} AS "${name}"`).join(', '));
