/** The introduction at the top of /docs (Markdown): what a caller needs before the first operation. */
export const API_INTRODUCTION = `Send email and SMS, one at a time or as broadcasts to a segment, and manage the contacts, templates, webhooks, segments, email domains and phone numbers around them. JSON in and out, under \`/v1\`.

## Authentication

Every operation takes an API key as a bearer token: \`Authorization: Bearer sk_test_...\`. A key belongs to one organization and sees only its data: another organization's id is 404, never 403. Make the first key with \`npx tidings orgs create --name Acme --test\`, more in the dashboard (Settings > API Keys) or with \`apiKey.create\`. A key is shown once; only its hash is stored.

## Test and live keys

- \`sk_test_\` keys send through the **sandbox**: nothing leaves the machine, and a moment later the sandbox reports the outcome like a provider would (\`bounce@...\` bounces, \`fail@...\` fails, an SMS number ending in \`0000\` is undelivered, anything else is delivered). Test keys need no domain or number.
- \`sk_live_\` keys send through the configured providers (Resend for email, Telnyx for SMS); email must come from a verified domain of the organization, SMS from a number it owns, or their defaults.
- A key's permission is \`full\` (everything) or \`sending\` (only \`message.send\`, \`message.list\`, \`message.get\`).
- Messages and broadcasts carry the \`mode\` of the key that made them (so do their webhook payloads), and a key sees only its own mode's: another mode's message or broadcast is 404 and absent from lists, as are the webhook deliveries about it. \`Idempotency-Key\`s are kept per organization and mode.
- A test key never reaches a real provider: changing, verifying or deleting a domain, or changing or releasing a number, provisioned at one is 403. Test keys buy sandbox numbers only from the fictional range +1 NXX 555-0100 to 555-0199.

## Errors

Every error is \`{ "code": "...", "message": "..." }\`, and the message names the field: \`to: required\`, \`to: must be a valid email address for channelType email\`, \`stauts: unknown query parameter\`.

| code | status | when |
|---|---|---|
| \`BAD_REQUEST\` | 400 | the body or query fails validation (unknown fields and query parameters too); 405, 413 and 415 carry this code as well |
| \`UNAUTHORIZED\` | 401 | no key, or an unknown, disabled or deleted one |
| \`FORBIDDEN\` | 403 | the key may not do this (a \`sending\` key; a test key asking for a live key, or changing a domain or number held at a real provider), or the organization is suspended |
| \`NOT_FOUND\` | 404 | no such thing in this organization |
| \`CONFLICT\` | 409 | a duplicate, a state that does not allow it, or an \`Idempotency-Key\` reused with another body |
| \`TOO_MANY_REQUESTS\` | 429 | over the rate limit, or too many failed authentications from one address (\`Retry-After\` says when to retry) |
| \`RATE_LIMITED\` | 429 | a sending limit, not a request limit: Verify's per-recipient cooldown and cap, the SMS fraud guard's limit per destination prefix (\`Retry-After\` says when) |
| \`INTERNAL_SERVER_ERROR\` | 500 | unexpected; the message carries the request id to quote |
| \`SERVICE_UNAVAILABLE\` | 503 | one database statement ran past its time limit (\`Retry-After\` says when to retry) |

Every response carries \`X-Request-Id\`; send your own to find a request in the logs.

## Pagination

Lists take \`limit\` (1 to 100, default 20) and \`offset\` or \`cursor\`, and answer \`{ "data": [...], "hasMore": true, "nextCursor": "..." }\`, newest first. Pass \`nextCursor\` as \`cursor\` until \`hasMore\` is false: every item is seen once, even while new ones are created. A query parameter the list does not know is a 400 naming it.

## Idempotency

\`message.send\`, \`message.sendBatch\`, \`contact.create\`, \`contact.bulkCreate\` and \`phoneNumber.purchase\` take an \`Idempotency-Key\` header (1 to 255 characters). For 24 hours the same key with the same body answers the first response again, with \`Idempotent-Replayed: true\`, and does nothing else; the same key with another body, or while the first request still runs, is 409. Retry a send with the same key and it is sent once.

## Rate limits

Each key may make 100 requests per rolling minute (the operator's \`RATE_LIMIT_PER_MINUTE\`), counted across every API server. Every response carries \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\` (seconds); a 429 adds \`Retry-After\` and did nothing.

## Webhooks

Register an https URL and the events you want with \`webhook.create\`; its signing secret (\`whsec_...\`) is in that answer only. Each event is a POST of \`{ "id", "type", "createdAt", "data" }\` signed with [Standard Webhooks](https://www.standardwebhooks.com/) (\`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`): verify the raw body, dedupe by \`webhook-id\` (delivery is at least once) and answer 2xx within 15 s. Failed deliveries are retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h; \`webhook.listEvents\` shows each delivery and its last attempt.
`;
