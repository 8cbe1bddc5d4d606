// Generated from GET /v1/openapi.json by openapi-typescript: do not edit. Regenerate: npm run generate -w @tidings/sdk
export interface paths {
    "/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List API keys
         * @description Keys that are not deleted, newest first; a `test` key sees only `test` keys. Never the full key: `prefix` and `lastUsedAt` tell them apart.
         */
        get: operations["apiKey.list"];
        put?: never;
        /**
         * Create an API key
         * @description Creates a key for this organization. The full key is in this response only; store it now. A `test` key creates only `test` keys (403 for `mode: live`), and an organization created for testing gets live keys only once an operator allows them (403). An organization has at most 100 keys that are not deleted (`API_KEYS_PER_ORG_MAX`): past it, 409.
         */
        post: operations["apiKey.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api-keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete an API key
         * @description Final: the key stops working and cannot be enabled again.
         */
        delete: operations["apiKey.delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api-keys/{id}/disable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Disable an API key
         * @description Requests with the key answer 401 at once on every replica until it is enabled again. A `live` key is 404 to a `test` key.
         */
        post: operations["apiKey.disable"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api-keys/{id}/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Enable an API key
         * @description Makes a disabled key work again. A deleted key cannot be enabled.
         */
        post: operations["apiKey.enable"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api-keys/{id}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate an API key
         * @description Issues a new secret, shown once. The old one keeps working for 24 hours unless `immediately` is true. A `live` key is 404 to a `test` key.
         */
        post: operations["apiKey.rotate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/audit-events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List audit events
         * @description Who changed what, newest first: every change to API keys, members and invitations, webhooks, email domains, phone numbers, suppressions, topics, broadcasts and organization settings, through the API (`apiKey`), the dashboard (`user`) or the CLI (`cli`), with the client address. Ids only, never a secret. A `test` key sees only the changes test keys made (in an organization made for testing, every change). Kept `AUDIT_RETENTION_DAYS` (365 by default).
         */
        get: operations["audit.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/broadcasts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List broadcasts
         * @description Newest first, optionally of one `status`. Counts are on broadcast.get.
         */
        get: operations["broadcast.list"];
        put?: never;
        /**
         * Create a broadcast
         * @description A draft that sends one template to every subscribed contact of a segment (or of the whole organization), each message rendered with `contact` and the shared `variables`. The template and segment must be this organization's (404 otherwise).
         */
        post: operations["broadcast.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/broadcasts/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a broadcast
         * @description With `counts` of its recipients and messages, read from the database now.
         */
        get: operations["broadcast.get"];
        put?: never;
        post?: never;
        /**
         * Delete a broadcast
         * @description Drafts only (409 otherwise).
         */
        delete: operations["broadcast.delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/broadcasts/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a broadcast
         * @description While `scheduled` or `sending` (409 otherwise): nothing more is sent; messages not yet handed to a provider are canceled.
         */
        post: operations["broadcast.cancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/broadcasts/{id}/links": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Clicks on the links of a broadcast
         * @description Each link clicked in the broadcast's emails, most clicked first (at most 1,000): clicks through Tidings' own click tracking and those the provider reported, each counted once.
         */
        get: operations["broadcast.links"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/broadcasts/{id}/retry-failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Retry the failed messages of a broadcast
         * @description Its messages that ended `failed` for a reason that can pass (`PROVIDER_FAILED`, `PROVIDER_UNAVAILABLE`, `RENDER_FAILED`, `SENDER_REFUSED`, `INTERNAL_ERROR`; never `SUPPRESSED` or `BOUNCED`) are queued again as the same messages, one per contact still; a message whose rendering failed is rendered again first. Each message's history shows the retry (`failed`, then `queued`). A `sent` broadcast is `sending` again until they settle. Only a sending or sent broadcast (409 otherwise).
         */
        post: operations["broadcast.retryFailed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/broadcasts/{id}/send": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a broadcast
         * @description A draft only (409 otherwise): 202 with `status: sending`, or `scheduled` when `scheduledAt` is in the future. The template version is fixed now (the latest, unless the draft named one): later template edits change nothing it sends. Recipients are fixed when sending starts; each contact gets at most one message. Every email carries `List-Unsubscribe` (one-click, RFC 8058).
         */
        post: operations["broadcast.send"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/contacts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List contacts
         * @description Newest first, filtered by any of the query parameters together.
         */
        get: operations["contact.list"];
        put?: never;
        /**
         * Create a contact
         * @description Needs `email` or `phone`. Another contact of the organization with the same email or phone is 409. Accepts `Idempotency-Key`.
         */
        post: operations["contact.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/contacts/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a contact
         * @description One contact of this organization.
         */
        get: operations["contact.get"];
        put?: never;
        post?: never;
        /**
         * Delete a contact
         * @description Messages already sent to the contact keep their `contactId`; an unsubscribe stays in force for the address.
         */
        delete: operations["contact.delete"];
        options?: never;
        head?: never;
        /**
         * Update a contact
         * @description Partial update. `attributes` merges key by key (`null` removes a key). `emailSubscribed`/`smsSubscribed` false suppresses the address for sending.
         */
        patch: operations["contact.update"];
        trace?: never;
    };
    "/contacts/bulk": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create up to 1,000 contacts
         * @description Each row as for contact.create. A row that is invalid, repeats an email or phone of an earlier row, or matches an existing contact is reported in `errors` by its index; the other rows are created. Accepts `Idempotency-Key`.
         */
        post: operations["contact.bulkCreate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/contacts/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export contacts as CSV
         * @description The contacts matching contact.list's filters as CSV (`text/csv`, RFC 4180, newest first), streamed: any number of contacts in constant memory. Columns: `id`, `email`, `phone`, `firstName`, `lastName`, `emailSubscribed`, `smsSubscribed`, `createdAt`, `updatedAt`, then `attributes.<key>` for each attribute key any exported contact has (strings as they are, other values as JSON). An unknown `segmentId` is 404.
         */
        get: operations["contact.export"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/email-domains": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List sending domains
         * @description Newest first.
         */
        get: operations["emailDomain.list"];
        put?: never;
        /**
         * Add a sending domain
         * @description Provisions the domain at the email provider and returns the DNS records to publish (return-path MX and SPF, DKIM, DMARC), all `pending`. 409 when the organization already has it.
         */
        post: operations["emailDomain.add"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/email-domains/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a sending domain
         * @description With the DNS status of each record as last checked.
         */
        get: operations["emailDomain.get"];
        put?: never;
        post?: never;
        /**
         * Delete a sending domain
         * @description Removes it at the provider too; sending from it afterwards is refused.
         */
        delete: operations["emailDomain.delete"];
        options?: never;
        head?: never;
        /**
         * Update a sending domain
         * @description `openTracking` and `clickTracking`: Tidings' own open pixel and click redirect in the html of email sent from this domain afterwards (default off; a send's `tracking` overrides them).
         */
        patch: operations["emailDomain.update"];
        trace?: never;
    };
    "/email-domains/{id}/default-sender": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set the default sender
         * @description The sender message.send uses when `from` is absent. `fromAddress` must be an address on this domain.
         */
        put: operations["emailDomain.setDefault"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/email-domains/{id}/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check DNS now
         * @description Looks every record up in DNS now. The domain becomes `verified` when every required record matches, `failed` when still not verified 72 hours after it was added; otherwise it stays as it was. Pending domains are also re-checked periodically.
         */
        post: operations["emailDomain.verify"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/emails": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send an email (Resend compatible)
         * @description message.send in Resend's shape: answers `{ id }`, a Tidings message id. Takes `Idempotency-Key`. Errors are `{ statusCode, name, message }` with Resend's names (`validation_error`, `missing_api_key`, `invalid_api_key`, `not_found`, `rate_limit_exceeded`, ...).
         */
        post: operations["resend.emails.send"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/emails/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an email (Resend compatible)
         * @description message.get in Resend's shape; `last_event` is the message's status (or its last engagement). Errors are `{ statusCode, name, message }` with Resend's names (`validation_error`, `missing_api_key`, `invalid_api_key`, `not_found`, `rate_limit_exceeded`, ...).
         */
        get: operations["resend.emails.get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Reschedule an email (Resend compatible)
         * @description Moves a scheduled email to `scheduled_at` (409 once it is no longer scheduled). Errors are `{ statusCode, name, message }` with Resend's names (`validation_error`, `missing_api_key`, `invalid_api_key`, `not_found`, `rate_limit_exceeded`, ...).
         */
        patch: operations["resend.emails.update"];
        trace?: never;
    };
    "/emails/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel an email (Resend compatible)
         * @description message.cancel: only while scheduled or queued (409 otherwise). Errors are `{ statusCode, name, message }` with Resend's names (`validation_error`, `missing_api_key`, `invalid_api_key`, `not_found`, `rate_limit_exceeded`, ...).
         */
        post: operations["resend.emails.cancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/emails/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send up to 100 emails (Resend compatible)
         * @description message.sendBatch in Resend's shape: a JSON array of emails. Takes `Idempotency-Key`. Errors are `{ statusCode, name, message }` with Resend's names (`validation_error`, `missing_api_key`, `invalid_api_key`, `not_found`, `rate_limit_exceeded`, ...).
         */
        post: operations["resend.batch.send"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List messages
         * @description Newest first, with optional filters; `createdAfter`/`createdBefore` are exclusive bounds.
         */
        get: operations["message.list"];
        put?: never;
        /**
         * Send a message
         * @description Accepts an email or SMS for delivery: 202 with status `queued`, or `scheduled` when `scheduledAt` is in the future (up to 30 days). Takes `Idempotency-Key`. Limits: `to`/`from` 320 chars, `subject` 998, `html` 512 KiB, `text` 256 KiB, `body` 1600, `tags` 10 of 100 chars, `metadata` 20 keys (40 chars) of 500-char values, `to`+`cc`+`bcc` 50 recipients, `replyTo` 10, `headers` 50, `attachments` 20 and 40 MiB decoded, `mediaUrls` 10, `variables` any JSON object nested at most 5 levels with at most 100 keys in all and 64 KiB; the whole request at most SEND_BODY_LIMIT_BYTES (48 MiB by default). Every problem is a 400 naming the field and index (`cc.3`, `attachments.0.path`), and nothing is stored.
         */
        post: operations["message.send"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/messages/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a message
         * @description The message with its status history (`events`, oldest first).
         */
        get: operations["message.get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/messages/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a message
         * @description Only while `scheduled` or `queued` (409 otherwise). A canceled message is never sent, even when its job is already queued.
         */
        post: operations["message.cancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/messages/{id}/source": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the source of an email
         * @description The RFC 5322 source (`message/rfc822`) of an outbound email as Tidings hands it to the SMTP provider and the sandbox: every header (`Message-ID`, `Date`, `List-Unsubscribe`...), the bodies and the attachments still kept (a `path` attachment, or bytes removed after sending, is an empty part with `X-Tidings-Content-Omitted`). Composed again from the stored message, with the same Message-ID, Date and MIME boundaries as when it was sent; Resend and SES compose their own MIME from the same fields. Bcc recipients are not among the headers. 404 for an SMS or an inbound message.
         */
        get: operations["message.getSource"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/messages/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send up to 100 messages
         * @description Each item is a message.send body, validated on its own: valid items are accepted even when others fail. `data[i]` is the message or null, `errors` lists the failed indexes. Takes `Idempotency-Key`. The whole request at most SEND_BODY_LIMIT_BYTES (48 MiB by default).
         */
        post: operations["message.sendBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/organization": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the organization
         * @description Its name and the countries an SMS may go to (unless set, those of its numbers).
         */
        get: operations["organization.get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update the organization
         * @description `smsCountries`: ISO 3166 alpha-2 codes an SMS may go to; an SMS to any other country is a 400.
         */
        patch: operations["organization.update"];
        trace?: never;
    };
    "/phone-numbers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List owned numbers
         * @description Newest first.
         */
        get: operations["phoneNumber.list"];
        put?: never;
        /**
         * Buy a number
         * @description Orders a number from a search. 409 when it is owned here already or the provider says it is no longer available. The organization's first number becomes its default. Accepts `Idempotency-Key`.
         */
        post: operations["phoneNumber.purchase"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/phone-numbers/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an owned number
         * @description Released numbers are not found.
         */
        get: operations["phoneNumber.get"];
        put?: never;
        post?: never;
        /**
         * Release a number
         * @description Gives it back at the provider. Afterwards it is not found and cannot send.
         */
        delete: operations["phoneNumber.release"];
        options?: never;
        head?: never;
        /**
         * Update a number
         * @description `friendlyName`, and `isDefault`: at most one default per organization; making one the default unsets the previous one.
         */
        patch: operations["phoneNumber.update"];
        trace?: never;
    };
    "/phone-numbers/available": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Search numbers to buy
         * @description The provider's inventory for the country, area code, digits and type asked (numbers already owned here are left out).
         */
        get: operations["phoneNumber.searchAvailable"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sandbox/inbound": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Receive a message in the sandbox
         * @description For `sk_test_` keys only (a live key is 403): a person writes to you, and it arrives exactly as a provider's inbound would - a message with `direction: inbound`, `message.received`, and SMS keywords (STOP, START, HELP...) acting as in production, on the test suppression list only (contacts, shared with live sends, are not changed).
         */
        post: operations["sandbox.inbound"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/segments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List segments
         * @description Newest first. Counts are on segment.get.
         */
        get: operations["segment.list"];
        put?: never;
        /**
         * Create a segment
         * @description A named filter over contacts. A bad condition is 400 naming its path, such as `criteria.all.1.any.0.value`.
         */
        post: operations["segment.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/segments/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a segment
         * @description With `contactCount`: the contacts matching the criteria now.
         */
        get: operations["segment.get"];
        put?: never;
        post?: never;
        /**
         * Delete a segment
         * @description Removes the filter; contacts are untouched.
         */
        delete: operations["segment.delete"];
        options?: never;
        head?: never;
        /**
         * Update a segment
         * @description Name and/or criteria.
         */
        patch: operations["segment.update"];
        trace?: never;
    };
    "/segments/{id}/contacts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the contacts in a segment
         * @description The contacts matching the criteria now, newest first; evaluated in the database.
         */
        get: operations["segment.listContacts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/suppressions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List suppressed recipients
         * @description Addresses and numbers no message is sent to (a send to one ends `failed` / `SUPPRESSED`), newest first: the list of the calling key's mode. A live send obeys the live list; a test send both.
         */
        get: operations["suppression.list"];
        put?: never;
        /**
         * Suppress a recipient
         * @description Blocks sends to the address or number (reason `manual`) on the calling key's mode's list, compared the way sends compare it. 409 when it is already on that list.
         */
        post: operations["suppression.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/suppressions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Lift a suppression
         * @description The next send to the recipient goes out again (a bounced address can be tried again). Contacts' subscription flags stay as they are. Another mode's suppression is 404: a test key never lifts a live one.
         */
        delete: operations["suppression.delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/templates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List templates
         * @description The latest version of each, newest first. Deleted templates only with `includeDeleted=true`.
         */
        get: operations["template.list"];
        put?: never;
        /**
         * Create a template
         * @description Version 1. Email templates have `subject` and `html` and/or `text`; SMS templates a `body`. Placeholders are Liquid (`{{ firstName }}`), HTML-escaped in `html` only; `variables` lists the names the content uses.
         */
        post: operations["template.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/templates/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a template
         * @description The latest version, or `?version=N`. A deleted template is 404 unless `includeDeleted=true`.
         */
        get: operations["template.get"];
        put?: never;
        post?: never;
        /**
         * Delete a template
         * @description Soft delete: get and list hide it unless `includeDeleted=true`, and sending with it is 400.
         */
        delete: operations["template.delete"];
        options?: never;
        head?: never;
        /**
         * Update a template
         * @description Writes version N+1; older versions stay readable (`?version=N`) and usable (`templateVersion` on send).
         */
        patch: operations["template.update"];
        trace?: never;
    };
    "/templates/{id}/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Render a template without sending
         * @description Renders the latest version (or `version`) with `variables`; a missing variable is 400 naming it. SMS previews count segments.
         */
        post: operations["template.preview"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/templates/{id}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the versions of a template
         * @description Every version, newest first.
         */
        get: operations["template.listVersions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/topics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List topics
         * @description Newest first.
         */
        get: operations["topic.list"];
        put?: never;
        /**
         * Create a topic
         * @description A subscription category. `opt_in`: contacts are in it once they subscribe; `opt_out`: every contact is in it until it unsubscribes. `public` topics are listed on the preference page.
         */
        post: operations["topic.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/topics/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a topic
         * @description The topic.
         */
        get: operations["topic.get"];
        put?: never;
        post?: never;
        /**
         * Delete a topic
         * @description Removes the topic and the contacts' choices about it. Broadcasts that named it keep their `topicId`, counts and messages.
         */
        delete: operations["topic.delete"];
        options?: never;
        head?: never;
        /**
         * Update a topic
         * @description Any of name, description, defaultSubscription and visibility. A new default applies to every contact that never chose.
         */
        patch: operations["topic.update"];
        trace?: never;
    };
    "/verifications": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List verifications
         * @description Newest first, filtered by `status` and `channelType`.
         */
        get: operations["verification.list"];
        put?: never;
        /**
         * Send a one-time code
         * @description Sends a random code to `to` on the transactional lane. Asking again while one is pending for the same `to` resends that verification with a new code after a cooldown (30 s, doubling), at most 5 sends per 10 minutes per `to` (429 with `Retry-After` beyond). An SMS passes the fraud guard first (allowed countries, number type, velocity per prefix).
         */
        post: operations["verification.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/verifications/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a verification
         * @description Its status and counts; never the code.
         */
        get: operations["verification.get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/verifications/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a verification
         * @description Its code stops working. One already approved, expired or stopped is a 409.
         */
        post: operations["verification.cancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/verifications/{id}/check": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check a code
         * @description `approved` once for the right code (the verification is then spent), `pending` for a wrong one, `max_attempts_reached` after 5 wrong codes, `expired`, `canceled`.
         */
        post: operations["verification.check"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook endpoints
         * @description The endpoints of the calling key's mode, disabled ones included, newest first.
         */
        get: operations["webhook.list"];
        put?: never;
        /**
         * Register a webhook endpoint
         * @description Registers a URL for the given event types. The URL must be https in production and resolve to public addresses only. The endpoint has the mode of the calling key and receives only that mode's message and broadcast events; a key of the other mode cannot see or change it. An organization has at most 20 enabled endpoints (`WEBHOOK_ENDPOINTS_PER_ORG`): past it, 409. The secret is in this response only. Deliveries are signed with Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`); verify them with the `standardwebhooks` library and this secret.
         */
        post: operations["webhook.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a webhook endpoint
         * @description The endpoint with `recentEvents`: its last 20 deliveries, newest first.
         */
        get: operations["webhook.get"];
        put?: never;
        post?: never;
        /**
         * Delete (disable) a webhook endpoint
         * @description Disables the endpoint: nothing is delivered to it again. Its history stays; `enabled: true` in an update brings it back.
         */
        delete: operations["webhook.delete"];
        options?: never;
        head?: never;
        /**
         * Update a webhook endpoint
         * @description Changes url (checked again), events, description or `enabled` (`true` re-enables a disabled endpoint; 409 past the limit of enabled endpoints).
         */
        patch: operations["webhook.update"];
        trace?: never;
    };
    "/webhooks/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List deliveries of a webhook endpoint
         * @description Deliveries to this endpoint, newest first, with their latest attempt; filter by `status`.
         */
        get: operations["webhook.listEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}/events/{deliveryId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get one delivery
         * @description The delivery with the payload it sends and every attempt, oldest first: status code, duration, the first 64 KiB of the answer, or the error.
         */
        get: operations["webhook.getEvent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}/events/{deliveryId}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Deliver again now
         * @description Delivers it again now, whatever its status. The payload and `webhook-id` stay the same (receivers dedupe by it); the signature is made afresh with a new timestamp. 400 when the endpoint is disabled.
         */
        post: operations["webhook.retryEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Re-deliver a range
         * @description Re-delivers every delivery of this endpoint created in `[since, until)` (`status: "failed"`: only those that gave up), after an outage. The deliveries go out through the bulk lane (slots of their own, so live webhooks never wait behind them), each with its original `webhook-id`. 400 when the endpoint is disabled, or when the range holds more than 10,000 deliveries (`WEBHOOK_REPLAY_MAX`): narrow it and replay in parts.
         */
        post: operations["webhook.replay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate the signing secret
         * @description A new secret, shown once. For 24 h the previous one signs too: `webhook-signature` carries two `v1,` signatures.
         */
        post: operations["webhook.rotateSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test event
         * @description Sends a `webhook.test` event to this endpoint only, now (subscribed to it or not). 400 when the endpoint is disabled.
         */
        post: operations["webhook.test"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * @example {
         *       "name": "example.com"
         *     }
         */
        AddEmailDomainBody: {
            /**
             * @description A registrable domain or a subdomain of one, such as `example.com` or `mail.example.com`; no scheme or path.
             * @example example.com
             */
            name: string;
        };
        /**
         * @example {
         *       "id": "key_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "name": "CI deploys",
         *       "permission": "sending",
         *       "mode": "live",
         *       "prefix": "sk_live_Ab3d",
         *       "state": "enabled",
         *       "lastUsedAt": "2026-11-23T08:05:00.000Z",
         *       "previousKeyExpiresAt": null,
         *       "createdAt": "2026-11-23T08:00:00.000Z",
         *       "updatedAt": "2026-11-23T08:00:00.000Z"
         *     }
         */
        ApiKey: {
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            createdAt: string;
            /** @example key_01JD8Z5Q9X4N7W2M3K6P0R1T5V */
            id: string;
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            lastUsedAt: string | null;
            /**
             * @description `live` keys send through the real providers; `test` keys only ever reach the sandbox.
             * @enum {string}
             */
            mode: "live" | "test";
            name: string;
            /**
             * @description `full`: every operation. `sending`: only message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource (and their Resend-compatible doors).
             * @enum {string}
             */
            permission: "full" | "sending";
            /**
             * @description The first 12 characters of the key.
             * @example sk_live_Ab3d
             */
            prefix: string;
            /**
             * Format: date-time
             * @description After a rotation, when the previous secret stops working; null when it already has.
             * @example 2026-11-23T08:00:00.000Z
             */
            previousKeyExpiresAt: string | null;
            /** @enum {string} */
            state: "enabled" | "disabled";
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            updatedAt: string;
        };
        /**
         * @example {
         *       "data": [
         *         {
         *           "id": "key_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "name": "CI deploys",
         *           "permission": "sending",
         *           "mode": "live",
         *           "prefix": "sk_live_Ab3d",
         *           "state": "enabled",
         *           "lastUsedAt": "2026-11-23T08:05:00.000Z",
         *           "previousKeyExpiresAt": null,
         *           "createdAt": "2026-11-23T08:00:00.000Z",
         *           "updatedAt": "2026-11-23T08:00:00.000Z"
         *         }
         *       ],
         *       "hasMore": true,
         *       "nextCursor": "eyJ0IjoiMjAyNi0xMS0yM1QwODowMDowMC4wMDBaIn0"
         *     }
         */
        ApiKeyList: {
            data: components["schemas"]["ApiKey"][];
            hasMore: boolean;
            /** @description Pass as `cursor` for the next page; null on the last page. */
            nextCursor: string | null;
        };
        /**
         * @example {
         *       "id": "key_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "name": "CI deploys",
         *       "permission": "sending",
         *       "mode": "live",
         *       "prefix": "sk_live_Ab3d",
         *       "state": "enabled",
         *       "lastUsedAt": "2026-11-23T08:05:00.000Z",
         *       "previousKeyExpiresAt": null,
         *       "createdAt": "2026-11-23T08:00:00.000Z",
         *       "updatedAt": "2026-11-23T08:00:00.000Z",
         *       "key": "sk_live_Ab3dEfGh1jKlMn0pQrStUvWxYz012345"
         *     }
         */
        ApiKeyWithSecret: components["schemas"]["ApiKey"] & {
            /**
             * @description The full key. Shown only in this response.
             * @example sk_live_Ab3dEf...
             */
            key: string;
        };
        AttachmentMetadata: {
            contentId: string | null;
            contentType: string;
            filename: string;
            /** @example att_01JD8Z5Q9X4N7W2M3K6P0R1T5V */
            id: string;
            /** @description Decoded bytes; null for a `path` attachment (fetched at send time). */
            size: number | null;
        };
        /**
         * @example {
         *       "id": "aud_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "action": "apiKey.rotated",
         *       "actor": {
         *         "type": "apiKey",
         *         "id": "key_01JD8Z5Q9X4N7W2M3K6P0R1T5A"
         *       },
         *       "targetId": "key_01JD8Z5Q9X4N7W2M3K6P0R1T5B",
         *       "ip": "203.0.113.7",
         *       "createdAt": "2026-11-23T08:00:00.000Z"
         *     }
         */
        AuditEvent: {
            /**
             * @description What changed, `<resource>.<what happened>`.
             * @enum {string}
             */
            action: "apiKey.created" | "apiKey.rotated" | "apiKey.disabled" | "apiKey.enabled" | "apiKey.deleted" | "member.roleChanged" | "member.removed" | "member.twoFactorReset" | "member.twoFactorEnabled" | "member.twoFactorDisabled" | "member.passwordReset" | "invitation.created" | "invitation.revoked" | "invitation.accepted" | "webhook.created" | "webhook.updated" | "webhook.deleted" | "webhook.secretRotated" | "webhook.replayed" | "webhook.eventRetried" | "emailDomain.added" | "emailDomain.defaultSenderSet" | "emailDomain.updated" | "emailDomain.deleted" | "emailDomain.markedVerified" | "phoneNumber.purchased" | "phoneNumber.updated" | "phoneNumber.released" | "suppression.created" | "suppression.deleted" | "topic.created" | "topic.updated" | "topic.deleted" | "broadcast.created" | "broadcast.updated" | "broadcast.sent" | "broadcast.canceled" | "broadcast.retriedFailed" | "broadcast.deleted" | "organization.updated" | "sms.refused" | "verification.canceled" | "organization.suspended" | "organization.unsuspended" | "organization.liveKeysAllowed";
            actor: {
                id: string | null;
                /**
                 * @description `apiKey`: a request with an API key (`id` is the key id); `user`: a person in the dashboard (`id` is their user id); `cli`: the `tidings` command on the server (`id` null).
                 * @enum {string}
                 */
                type: "user" | "apiKey" | "cli";
            };
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            createdAt: string;
            /** @example aud_01JD8Z5Q9X4N7W2M3K6P0R1T5V */
            id: string;
            /** @description The client's address (behind `TRUST_PROXY`, the one the proxy saw); null for the CLI. */
            ip: string | null;
            /** @description The id of what changed (a key, a webhook, a user, the organization); never a secret. */
            targetId: string | null;
        };
        /**
         * @example {
         *       "data": [
         *         {
         *           "id": "aud_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "action": "apiKey.rotated",
         *           "actor": {
         *             "type": "apiKey",
         *             "id": "key_01JD8Z5Q9X4N7W2M3K6P0R1T5A"
         *           },
         *           "targetId": "key_01JD8Z5Q9X4N7W2M3K6P0R1T5B",
         *           "ip": "203.0.113.7",
         *           "createdAt": "2026-11-23T08:00:00.000Z"
         *         }
         *       ],
         *       "hasMore": true,
         *       "nextCursor": "eyJ0IjoiMjAyNi0xMS0yM1QwODowMDowMC4wMDBaIn0"
         *     }
         */
        AuditEventList: {
            data: components["schemas"]["AuditEvent"][];
            hasMore: boolean;
            /** @description Pass as `cursor` for the next page; null on the last page. */
            nextCursor: string | null;
        };
        /**
         * @example {
         *       "number": "+14155550123",
         *       "type": "local",
         *       "country": "US",
         *       "region": "CA",
         *       "locality": "San Francisco",
         *       "features": [
         *         "sms",
         *         "mms",
         *         "voice"
         *       ],
         *       "monthlyCost": {
         *         "amount": "1.00",
         *         "currency": "USD"
         *       }
         *     }
         */
        AvailablePhoneNumber: {
            /** @example US */
            country: string;
            /**
             * @example [
             *       "sms",
             *       "mms",
             *       "voice"
             *     ]
             */
            features: string[];
            /** @example San Francisco */
            locality: string | null;
            monthlyCost: {
                amount: string;
                currency: string;
            } | null;
            /** @example +14155550123 */
            number: string;
            /** @example CA */
            region: string | null;
            /** @enum {string} */
            type: "local" | "tollFree" | "mobile";
        };
        /**
         * @example {
         *       "data": [
         *         {
         *           "number": "+14155550123",
         *           "type": "local",
         *           "country": "US",
         *           "region": "CA",
         *           "locality": "San Francisco",
         *           "features": [
         *             "sms",
         *             "mms",
         *             "voice"
         *           ],
         *           "monthlyCost": {
         *             "amount": "1.00",
         *             "currency": "USD"
         *           }
         *         }
         *       ]
         *     }
         */
        AvailablePhoneNumberList: {
            data: components["schemas"]["AvailablePhoneNumber"][];
        };
        BatchItemError: {
            code: string;
            index: number;
            message: string;
        };
        /**
         * @example {
         *       "id": "brd_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "name": "November newsletter",
         *       "channelType": "email",
         *       "templateId": "tpl_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "templateVersion": 3,
         *       "segmentId": "seg_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "topicId": null,
         *       "from": "Acme <news@example.com>",
         *       "variables": {
         *         "month": "November"
         *       },
         *       "tags": [
         *         "newsletter"
         *       ],
         *       "quietHours": null,
         *       "sendRate": null,
         *       "mode": "live",
         *       "status": "sending",
         *       "scheduledAt": null,
         *       "startedAt": "2026-11-23T08:00:00.000Z",
         *       "completedAt": null,
         *       "canceledAt": null,
         *       "createdAt": "2026-11-23T07:00:00.000Z",
         *       "updatedAt": "2026-11-23T08:00:00.000Z"
         *     }
         */
        Broadcast: {
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            canceledAt: string | null;
            /** @enum {string} */
            channelType: "email" | "sms";
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            completedAt: string | null;
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            createdAt: string;
            from: string | null;
            /** @example brd_01JD8Z5Q9X4N7W2M3K6P0R1T5V */
            id: string;
            /**
             * @description The mode of the key that created it; its messages carry it. A key sees only its own mode's broadcasts.
             * @enum {string}
             */
            mode: "live" | "test";
            name: string;
            quietHours: components["schemas"]["QuietHours"];
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            scheduledAt: string | null;
            /** @description Null: every contact of the organization. */
            segmentId: string | null;
            /** @description Messages per minute at most; null: no limit. */
            sendRate: number | null;
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            startedAt: string | null;
            /**
             * @description `draft -> scheduled -> sending -> sent`, `scheduled|sending -> canceled`. `sent`: every message is created and none is still waiting for a provider.
             * @enum {string}
             */
            status: "draft" | "scheduled" | "sending" | "sent" | "canceled";
            tags: string[];
            templateId: string;
            /** @description The template version it sends: the one named, else the latest when broadcast.send was called (sent or scheduled). Later template edits do not change it. Null only for a draft that names none. */
            templateVersion: number | null;
            /** @description Only the topic's members when set; kept after the topic is deleted. */
            topicId: string | null;
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            updatedAt: string;
            variables: {
                [key: string]: string | number | boolean | Record<string, unknown> | unknown[] | null;
            };
        };
        BroadcastCounts: {
            bounced: number;
            clicked: number;
            delivered: number;
            /** @description Failed or undelivered messages, including contacts whose rendering failed (the message carries the reason). */
            failed: number;
            opened: number;
            /** @description Messages created and waiting for a provider (queued or sending). */
            queued: number;
            /** @description Contacts of the segment with an address for the channel, fixed when sending started. */
            recipients: number;
            /** @description Accepted by the provider, no outcome yet. */
            sent: number;
            /** @description Recipients not sent to: unsubscribed from the channel or on the suppression list. */
            suppressed: number;
            /** @description Contacts who unsubscribed through this broadcast. */
            unsubscribed: number;
            /** @description Messages held by quiet hours until the window ends in the recipient's local time. */
            waiting: number;
        };
        BroadcastLink: {
            /** @description Clicks recorded (a repeat on the same link of the same message within an hour counts once). */
            clicks: number;
            /** @description Messages (so recipients) with at least one click on it. */
            uniqueClicks: number;
            /**
             * @description The link as written in the email.
             * @example https://example.com/sale
             */
            url: string;
        };
        /**
         * @example [
         *       {
         *         "url": "https://example.com/sale",
         *         "clicks": 412,
         *         "uniqueClicks": 377
         *       }
         *     ]
         */
        BroadcastLinks: components["schemas"]["BroadcastLink"][];
        /**
         * @example {
         *       "data": [
         *         {
         *           "id": "brd_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "name": "November newsletter",
         *           "channelType": "email",
         *           "templateId": "tpl_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "templateVersion": 3,
         *           "segmentId": "seg_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "topicId": null,
         *           "from": "Acme <news@example.com>",
         *           "variables": {
         *             "month": "November"
         *           },
         *           "tags": [
         *             "newsletter"
         *           ],
         *           "quietHours": null,
         *           "sendRate": null,
         *           "mode": "live",
         *           "status": "sending",
         *           "scheduledAt": null,
         *           "startedAt": "2026-11-23T08:00:00.000Z",
         *           "completedAt": null,
         *           "canceledAt": null,
         *           "createdAt": "2026-11-23T07:00:00.000Z",
         *           "updatedAt": "2026-11-23T08:00:00.000Z"
         *         }
         *       ],
         *       "hasMore": true,
         *       "nextCursor": "eyJ0IjoiMjAyNi0xMS0yM1QwODowMDowMC4wMDBaIn0"
         *     }
         */
        BroadcastList: {
            data: components["schemas"]["Broadcast"][];
            hasMore: boolean;
            /** @description Pass as `cursor` for the next page; null on the last page. */
            nextCursor: string | null;
        };
        /**
         * @example {
         *       "count": 335
         *     }
         */
        BroadcastRetry: {
            /** @description Failed messages queued again (rendered again first where their rendering had failed). */
            count: number;
        };
        /**
         * @example {
         *       "id": "brd_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "name": "November newsletter",
         *       "channelType": "email",
         *       "templateId": "tpl_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "templateVersion": 3,
         *       "segmentId": "seg_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "topicId": null,
         *       "from": "Acme <news@example.com>",
         *       "variables": {
         *         "month": "November"
         *       },
         *       "tags": [
         *         "newsletter"
         *       ],
         *       "quietHours": null,
         *       "sendRate": null,
         *       "mode": "live",
         *       "status": "sending",
         *       "scheduledAt": null,
         *       "startedAt": "2026-11-23T08:00:00.000Z",
         *       "completedAt": null,
         *       "canceledAt": null,
         *       "createdAt": "2026-11-23T07:00:00.000Z",
         *       "updatedAt": "2026-11-23T08:00:00.000Z",
         *       "estimatedFinishAt": null,
         *       "counts": {
         *         "recipients": 1200,
         *         "waiting": 0,
         *         "queued": 300,
         *         "sent": 100,
         *         "delivered": 760,
         *         "failed": 2,
         *         "bounced": 3,
         *         "suppressed": 35,
         *         "unsubscribed": 1,
         *         "opened": 0,
         *         "clicked": 0
         *       },
         *       "failedReasons": {
         *         "PROVIDER_FAILED": 2
         *       }
         *     }
         */
        BroadcastWithCounts: components["schemas"]["Broadcast"] & {
            counts: components["schemas"]["BroadcastCounts"];
            /**
             * Format: date-time
             * @description While `sending`: when the messages left should be through, at the slower of `sendRate` and the provider's pace (null when neither is known).
             * @example 2026-11-23T08:00:00.000Z
             */
            estimatedFinishAt: string | null;
            /** @description How many messages failed for each reason (`RENDER_FAILED`, `PROVIDER_FAILED`, ...); broadcast.retryFailed sends again those that can pass. */
            failedReasons: {
                [key: string]: number;
            };
        };
        /**
         * @example {
         *       "contacts": [
         *         {
         *           "email": "ada@example.com",
         *           "firstName": "Ada",
         *           "attributes": {
         *             "plan": "pro"
         *           }
         *         },
         *         {
         *           "phone": "+14155550124",
         *           "firstName": "Grace"
         *         }
         *       ]
         *     }
         */
        BulkCreateContactsBody: {
            contacts: components["schemas"]["CreateContactBody"][];
            /**
             * @description A row whose email or phone a contact already has: `skip` reports it in `errors` (409), `update` changes that contact: the row's names, its attributes merged key by key (a `null` value removes the key), its email or phone, and `emailSubscribed`/`smsSubscribed` only when false (an import never resubscribes anyone).
             * @default skip
             * @enum {string}
             */
            onConflict?: "skip" | "update";
        };
        /**
         * @example {
         *       "created": [
         *         {
         *           "id": "con_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "email": "ada@example.com",
         *           "phone": "+14155550123",
         *           "firstName": "Ada",
         *           "lastName": "Lovelace",
         *           "attributes": {
         *             "plan": "pro",
         *             "seats": 12
         *           },
         *           "emailSubscribed": true,
         *           "smsSubscribed": false,
         *           "topics": [
         *             {
         *               "topicId": "top_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *               "subscribed": true
         *             }
         *           ],
         *           "createdAt": "2026-11-23T08:00:00.000Z",
         *           "updatedAt": "2026-11-23T08:05:00.000Z"
         *         }
         *       ],
         *       "updated": [],
         *       "errors": [
         *         {
         *           "index": 1,
         *           "code": "BAD_REQUEST",
         *           "message": "email: Invalid email address"
         *         }
         *       ]
         *     }
         */
        BulkCreateContactsResult: {
            created: components["schemas"]["Contact"][];
            errors: components["schemas"]["RowError"][];
            /** @description With `onConflict: "update"`: the existing contacts the rows changed, in request order. */
            updated: components["schemas"]["Contact"][];
        };
        /**
         * @example {
         *       "code": "492817"
         *     }
         */
        CheckVerificationBody: {
            /** @example 492817 */
            code: string;
        };
        /**
         * @example {
         *       "id": "con_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "email": "ada@example.com",
         *       "phone": "+14155550123",
         *       "firstName": "Ada",
         *       "lastName": "Lovelace",
         *       "attributes": {
         *         "plan": "pro",
         *         "seats": 12
         *       },
         *       "emailSubscribed": true,
         *       "smsSubscribed": false,
         *       "topics": [
         *         {
         *           "topicId": "top_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "subscribed": true
         *         }
         *       ],
         *       "createdAt": "2026-11-23T08:00:00.000Z",
         *       "updatedAt": "2026-11-23T08:05:00.000Z"
         *     }
         */
        Contact: {
            /**
             * @description A JSON object; criteria address its top-level keys as `attributes.<key>`.
             * @example {
             *       "plan": "pro",
             *       "seats": 12,
             *       "trial": false,
             *       "signupAt": "2026-01-15",
             *       "tags": [
             *         "beta"
             *       ]
             *     }
             */
            attributes: {
                [key: string]: string | number | boolean | Record<string, unknown> | unknown[] | null;
            };
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            createdAt: string;
            /**
             * @description Lower-cased.
             * @example ada@example.com
             */
            email: string | null;
            emailSubscribed: boolean;
            firstName: string | null;
            /** @example con_01JD8Z5Q9X4N7W2M3K6P0R1T5V */
            id: string;
            lastName: string | null;
            /**
             * @description E.164.
             * @example +14155550123
             */
            phone: string | null;
            smsSubscribed: boolean;
            /** @description The topics the contact chose. A contact is in a topic it subscribed to, or that it never chose and whose default is `opt_out`. */
            topics: components["schemas"]["ContactTopic"][];
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            updatedAt: string;
        };
        /**
         * @example {
         *       "data": [
         *         {
         *           "id": "con_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "email": "ada@example.com",
         *           "phone": "+14155550123",
         *           "firstName": "Ada",
         *           "lastName": "Lovelace",
         *           "attributes": {
         *             "plan": "pro",
         *             "seats": 12
         *           },
         *           "emailSubscribed": true,
         *           "smsSubscribed": false,
         *           "topics": [
         *             {
         *               "topicId": "top_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *               "subscribed": true
         *             }
         *           ],
         *           "createdAt": "2026-11-23T08:00:00.000Z",
         *           "updatedAt": "2026-11-23T08:05:00.000Z"
         *         }
         *       ],
         *       "hasMore": true,
         *       "nextCursor": "eyJ0IjoiMjAyNi0xMS0yM1QwODowMDowMC4wMDBaIn0"
         *     }
         */
        ContactList: {
            data: components["schemas"]["Contact"][];
            hasMore: boolean;
            /** @description Pass as `cursor` for the next page; null on the last page. */
            nextCursor: string | null;
        };
        /**
         * @description A choice the contact made about a topic.
         * @example {
         *       "topicId": "top_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "subscribed": true
         *     }
         */
        ContactTopic: {
            subscribed: boolean;
            topicId: string;
        };
        /**
         * @example {
         *       "name": "CI deploys",
         *       "permission": "sending"
         *     }
         */
        CreateApiKeyBody: {
            /**
             * @description Defaults to the calling key's mode. A `test` key can only create `test` keys.
             * @enum {string}
             */
            mode?: "live" | "test";
            name: string;
            /**
             * @description `full`: every operation. `sending`: only message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource (and their Resend-compatible doors).
             * @default full
             * @enum {string}
             */
            permission?: "full" | "sending";
        };
        /**
         * @example {
         *       "name": "November newsletter",
         *       "channelType": "email",
         *       "templateId": "tpl_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "segmentId": "seg_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "variables": {
         *         "month": "November"
         *       }
         *     }
         */
        CreateBroadcastBody: {
            /** @enum {string} */
            channelType: "email" | "sms";
            /** @description email: an address (optionally `Name <address>`) on a verified domain of the organization; sms: an E.164 number it owns. Absent: the default sender. Not checked for `sk_test_` keys. */
            from?: string;
            name: string;
            quietHours?: components["schemas"]["QuietHours"];
            /** @description Absent: every contact of the organization. */
            segmentId?: string;
            /**
             * @description Messages per minute the fan-out releases at most (warming up a new domain or number): recipient n is due n / sendRate minutes after the start, held across send-worker replicas and restarts. Absent: as fast as the bulk lane allows.
             * @example 600
             */
            sendRate?: number;
            tags?: string[];
            templateId: string;
            /** @description A version of the template; the latest when absent. */
            templateVersion?: number;
            /** @description Only contacts in the topic (of the segment, if one is named): subscribed, or never chose and the topic is `opt_out`. The List-Unsubscribe one-click POST then unsubscribes from this topic only. */
            topicId?: string;
            /**
             * @description Shared by every message; the template also sees `contact` (id, email, phone, firstName, lastName, attributes), `unsubscribeUrl` and `preferencesUrl`.
             * @example {
             *       "firstName": "Ada",
             *       "order": {
             *         "number": 1042
             *       }
             *     }
             */
            variables?: {
                [key: string]: string | number | boolean | Record<string, unknown> | unknown[] | null;
            };
        };
        /**
         * @example {
         *       "email": "ada@example.com",
         *       "phone": "+14155550123",
         *       "firstName": "Ada",
         *       "lastName": "Lovelace",
         *       "attributes": {
         *         "plan": "pro",
         *         "seats": 12
         *       },
         *       "smsSubscribed": false
         *     }
         */
        CreateContactBody: {
            /** @description A JSON object (top-level keys: letters, digits, _ and -); `null` values are ignored. */
            attributes?: {
                [key: string]: string | number | boolean | Record<string, unknown> | unknown[] | null;
            };
            /** Format: email */
            email?: string;
            /** @default true */
            emailSubscribed?: boolean;
            firstName?: string | null;
            lastName?: string | null;
            /**
             * @description A phone number with its country code; stored as E.164.
             * @example +14155550123
             */
            phone?: string;
            /** @default true */
            smsSubscribed?: boolean;
            /** @description Up to 100 choices, merged by topic into the contact's: a topic not named keeps its choice (or its default). */
            topics?: components["schemas"]["ContactTopic"][];
        };
        /**
         * @example {
         *       "name": "Paying customers",
         *       "criteria": {
         *         "all": [
         *           {
         *             "field": "emailSubscribed",
         *             "op": "eq",
         *             "value": true
         *           },
         *           {
         *             "any": [
         *               {
         *                 "field": "attributes.plan",
         *                 "op": "in",
         *                 "value": [
         *                   "pro",
         *                   "team"
         *                 ]
         *               },
         *               {
         *                 "field": "attributes.seats",
         *                 "op": "gte",
         *                 "value": 10
         *               }
         *             ]
         *           }
         *         ]
         *       }
         *     }
         */
        CreateSegmentBody: {
            criteria: components["schemas"]["SegmentCriteria"];
            name: string;
        };
        /**
         * @example {
         *       "channelType": "email",
         *       "address": "ada@example.com"
         *     }
         */
        CreateSuppressionBody: {
            /** @description An email address (email) or an E.164 number (sms). */
            address: string;
            /** @enum {string} */
            channelType: "email" | "sms";
            /**
             * @description Always `manual`; the other reasons are written by what they name.
             * @enum {string}
             */
            reason?: "manual";
        };
        /**
         * @example {
         *       "name": "sign-in-code",
         *       "channelType": "email",
         *       "subject": "Your code, {{firstName}}",
         *       "html": "<p>Hi {{firstName}}, your code is <strong>{{code}}</strong>.</p>",
         *       "text": "Hi {{firstName}}, your code is {{code}}.",
         *       "replyTo": "Support <help@example.com>"
         *     }
         */
        CreateTemplateBody: {
            /** @description SMS text; placeholders are not escaped. */
            body?: string;
            /** @enum {string} */
            channelType: "email" | "sms";
            /** @description Email HTML; values of placeholders are HTML-escaped. */
            html?: string;
            name: string;
            /** @description email: one address (`Name <address>` allowed) or up to 10, used as the Reply-To of sends with this template that give none. */
            replyTo?: string | string[];
            /** @description Email subject, one line; `{{name}}` placeholders, not HTML-escaped. */
            subject?: string;
            /** @description Email plain text; placeholders are not escaped. */
            text?: string;
        };
        /**
         * @example {
         *       "name": "Product news",
         *       "description": "What we shipped this month",
         *       "defaultSubscription": "opt_out"
         *     }
         */
        CreateTopicBody: {
            /**
             * @description `opt_in`: a contact is in the topic only once it subscribes. `opt_out`: every contact is in it until it unsubscribes.
             * @enum {string}
             */
            defaultSubscription: "opt_in" | "opt_out";
            description?: string | null;
            name: string;
            /**
             * @description `public` topics are listed on the preference page; `private` ones are not (a contact changes them only through the API).
             * @default public
             * @enum {string}
             */
            visibility?: "public" | "private";
        };
        /**
         * @example {
         *       "channelType": "sms",
         *       "to": "+14155550123"
         *     }
         */
        CreateVerificationBody: {
            /** @enum {string} */
            channelType: "sms" | "email";
            /** @default 6 */
            codeLength?: number;
            /** @default 600 */
            expiresInSeconds?: number;
            /** @description A BCP 47 tag; the default texts are English, so it reaches a template as `{{ locale }}`. */
            locale?: string;
            /** @description A template of the channel whose content uses `{{ code }}`; the English default (with the organization's name) otherwise. */
            templateId?: string;
            /** @description An E.164 number (`sms`) or an email address (`email`). */
            to: string;
        };
        /**
         * @example {
         *       "url": "https://example.com/webhooks/tidings",
         *       "events": [
         *         "message.delivered",
         *         "message.bounced"
         *       ],
         *       "description": "Delivery receipts for the CRM"
         *     }
         */
        CreateWebhookBody: {
            /** @example Delivery receipts for the CRM */
            description?: string;
            /**
             * @description The event types to receive.
             * @example [
             *       "message.delivered",
             *       "message.bounced"
             *     ]
             */
            events: components["schemas"]["EventType"][];
            /**
             * @description Where events are POSTed. https in production; must resolve to public addresses only.
             * @example https://example.com/webhooks/tidings
             */
            url: string;
        };
        /**
         * @description Why it waits, while `deferredUntil` is set.
         * @enum {string|null}
         */
        DeferredReason: "provider_rate_limit" | "sender_rate_limit" | "quiet_hours" | "send_rate" | null;
        /**
         * @example {
         *       "purpose": "spf",
         *       "type": "TXT",
         *       "name": "send.example.com",
         *       "value": "v=spf1 include:amazonses.com ~all",
         *       "required": true,
         *       "status": "verified"
         *     }
         */
        DnsRecord: {
            /**
             * @description Fully qualified name to publish the record at.
             * @example send.example.com
             */
            name: string;
            /** @description MX records only. */
            priority?: number;
            /**
             * @description What the record is for.
             * @enum {string}
             */
            purpose: "spf" | "dkim" | "dmarc" | "returnPath";
            /** @description Whether verification waits for this record (DMARC is recommended, not required). */
            required: boolean;
            /**
             * @description `pending`: not found in DNS yet. `verified`: found with the expected value. `failed`: found with another value.
             * @enum {string}
             */
            status: "pending" | "verified" | "failed";
            /** @enum {string} */
            type: "TXT" | "MX" | "CNAME";
            /** @example v=spf1 include:amazonses.com ~all */
            value: string;
        };
        /**
         * @example {
         *       "id": "dom_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "name": "example.com",
         *       "status": "verified",
         *       "provider": "resend",
         *       "records": [
         *         {
         *           "purpose": "returnPath",
         *           "type": "MX",
         *           "name": "send.example.com",
         *           "value": "feedback-smtp.us-east-1.amazonses.com",
         *           "priority": 10,
         *           "required": true,
         *           "status": "verified"
         *         },
         *         {
         *           "purpose": "spf",
         *           "type": "TXT",
         *           "name": "send.example.com",
         *           "value": "v=spf1 include:amazonses.com ~all",
         *           "required": true,
         *           "status": "verified"
         *         },
         *         {
         *           "purpose": "dkim",
         *           "type": "TXT",
         *           "name": "resend._domainkey.example.com",
         *           "value": "p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC7vbqajDw4o6gJy8UtmIbkcpnkO3Kwc4qsEnSZp/TR+fQi62F79RHWmwKOtFmwteURgLbj7D/WGNNIDBpFlw0akoIHM3K+QwNAybS5IIgtVAr0yKqvmy2FKVw0HiCSR0MqJOzQHpFpDrg1z3nY1Qz9DHeYl5H0C2oP5Ig2dLpQIDAQAB",
         *           "required": true,
         *           "status": "verified"
         *         },
         *         {
         *           "purpose": "dmarc",
         *           "type": "TXT",
         *           "name": "_dmarc.example.com",
         *           "value": "v=DMARC1; p=none;",
         *           "required": false,
         *           "status": "pending"
         *         }
         *       ],
         *       "defaultSender": {
         *         "fromName": "Acme",
         *         "fromAddress": "hello@example.com",
         *         "replyTo": "support@example.com"
         *       },
         *       "openTracking": false,
         *       "clickTracking": true,
         *       "verifiedAt": "2026-11-23T08:12:00.000Z",
         *       "lastCheckedAt": "2026-11-23T08:12:00.000Z",
         *       "createdAt": "2026-11-23T08:00:00.000Z",
         *       "updatedAt": "2026-11-23T08:15:00.000Z"
         *     }
         */
        EmailDomain: {
            /** @description Tidings' own click tracking (each http(s) link through the click redirect) of email sent from this domain; a send's `tracking.clicks` overrides it. */
            clickTracking: boolean;
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            createdAt: string;
            /** @description Used by message.send when `from` is absent; set with emailDomain.setDefault. */
            defaultSender: {
                fromAddress: string;
                fromName: string | null;
                replyTo: string | null;
            } | null;
            /** @example dom_01JD8Z5Q9X4N7W2M3K6P0R1T5V */
            id: string;
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            lastCheckedAt: string | null;
            /** @example example.com */
            name: string;
            /** @description Tidings' own open tracking (a 1x1 image) of email sent from this domain; a send's `tracking.opens` overrides it. */
            openTracking: boolean;
            /** @description `resend`, or `sandbox` for test keys and installs without Resend. */
            provider: string;
            records: components["schemas"]["DnsRecord"][];
            /**
             * @description `verified` once every required record matches; `failed` when still unverified 72 hours after it was added.
             * @enum {string}
             */
            status: "pending" | "verified" | "failed";
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            updatedAt: string;
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            verifiedAt: string | null;
        };
        /**
         * @example {
         *       "data": [
         *         {
         *           "id": "dom_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "name": "example.com",
         *           "status": "verified",
         *           "provider": "resend",
         *           "records": [
         *             {
         *               "purpose": "returnPath",
         *               "type": "MX",
         *               "name": "send.example.com",
         *               "value": "feedback-smtp.us-east-1.amazonses.com",
         *               "priority": 10,
         *               "required": true,
         *               "status": "verified"
         *             },
         *             {
         *               "purpose": "spf",
         *               "type": "TXT",
         *               "name": "send.example.com",
         *               "value": "v=spf1 include:amazonses.com ~all",
         *               "required": true,
         *               "status": "verified"
         *             },
         *             {
         *               "purpose": "dkim",
         *               "type": "TXT",
         *               "name": "resend._domainkey.example.com",
         *               "value": "p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC7vbqajDw4o6gJy8UtmIbkcpnkO3Kwc4qsEnSZp/TR+fQi62F79RHWmwKOtFmwteURgLbj7D/WGNNIDBpFlw0akoIHM3K+QwNAybS5IIgtVAr0yKqvmy2FKVw0HiCSR0MqJOzQHpFpDrg1z3nY1Qz9DHeYl5H0C2oP5Ig2dLpQIDAQAB",
         *               "required": true,
         *               "status": "verified"
         *             },
         *             {
         *               "purpose": "dmarc",
         *               "type": "TXT",
         *               "name": "_dmarc.example.com",
         *               "value": "v=DMARC1; p=none;",
         *               "required": false,
         *               "status": "pending"
         *             }
         *           ],
         *           "defaultSender": {
         *             "fromName": "Acme",
         *             "fromAddress": "hello@example.com",
         *             "replyTo": "support@example.com"
         *           },
         *           "openTracking": false,
         *           "clickTracking": true,
         *           "verifiedAt": "2026-11-23T08:12:00.000Z",
         *           "lastCheckedAt": "2026-11-23T08:12:00.000Z",
         *           "createdAt": "2026-11-23T08:00:00.000Z",
         *           "updatedAt": "2026-11-23T08:15:00.000Z"
         *         }
         *       ],
         *       "hasMore": true,
         *       "nextCursor": "eyJ0IjoiMjAyNi0xMS0yM1QwODowMDowMC4wMDBaIn0"
         *     }
         */
        EmailDomainList: {
            data: components["schemas"]["EmailDomain"][];
            hasMore: boolean;
            /** @description Pass as `cursor` for the next page; null on the last page. */
            nextCursor: string | null;
        };
        Error: {
            /** @enum {string} */
            code: "UNAUTHORIZED" | "FORBIDDEN" | "BAD_REQUEST" | "NOT_FOUND" | "CONFLICT" | "TOO_MANY_REQUESTS" | "RATE_LIMITED" | "INTERNAL_SERVER_ERROR" | "SERVICE_UNAVAILABLE";
            /** @example name: Too small: expected string to have >=1 characters */
            message: string;
        };
        /** @enum {string} */
        EventType: "message.queued" | "message.sent" | "message.delivered" | "message.failed" | "message.bounced" | "message.undelivered" | "message.canceled" | "message.received" | "message.opened" | "message.clicked" | "message.complained" | "message.delayed" | "verification.approved" | "verification.expired" | "verification.failed" | "contact.created" | "contact.updated" | "contact.deleted" | "contact.unsubscribed" | "broadcast.sending" | "broadcast.sent" | "broadcast.canceled" | "emailDomain.verified" | "emailDomain.failed" | "phoneNumber.purchased" | "phoneNumber.released" | "webhook.test";
        /**
         * @description Texts answering inbound keywords. Unset: SMS_STOP_REPLY, SMS_START_REPLY, SMS_HELP_TEXT, else a default naming the organization.
         * @example {
         *       "help": "Acme alerts: reply STOP to unsubscribe. Help at acme.com/sms."
         *     }
         */
        KeywordReplies: {
            /** @description The answer to HELP or INFO, sent whether the number opted out or not. */
            help?: string;
            /** @description The confirmation sent after START (or a synonym). */
            start?: string;
            /** @description The one confirmation sent after STOP (or a synonym): the last message the number gets until it writes START. */
            stop?: string;
        };
        /**
         * @example {
         *       "id": "msg_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "channelType": "email",
         *       "direction": "outbound",
         *       "to": "ada@example.com",
         *       "toAll": [
         *         "ada@example.com"
         *       ],
         *       "from": "Acme <hello@example.com>",
         *       "cc": [],
         *       "bcc": [],
         *       "replyTo": [],
         *       "headers": {},
         *       "subject": "Your sign-in code",
         *       "text": "Your code is 123456.",
         *       "html": "<p>Your code is <strong>123456</strong>.</p>",
         *       "body": null,
         *       "mediaUrls": [],
         *       "attachments": [],
         *       "templateId": null,
         *       "templateVersion": null,
         *       "contactId": "con_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "broadcastId": null,
         *       "status": "delivered",
         *       "segments": null,
         *       "provider": "resend",
         *       "mode": "live",
         *       "providerMessageId": "4ef9a417-02e9-4d39-ad75-9611e0fcc33c",
         *       "error": null,
         *       "attempts": 1,
         *       "tags": [
         *         "auth"
         *       ],
         *       "metadata": {
         *         "userId": "usr_42"
         *       },
         *       "scheduledAt": null,
         *       "deferredUntil": null,
         *       "deferredReason": null,
         *       "sentAt": "2026-11-23T08:00:01.000Z",
         *       "deliveredAt": "2026-11-23T08:00:03.000Z",
         *       "failedAt": null,
         *       "openedAt": "2026-11-23T08:04:00.000Z",
         *       "clickedAt": null,
         *       "createdAt": "2026-11-23T08:00:00.000Z",
         *       "updatedAt": "2026-11-23T08:04:00.000Z"
         *     }
         */
        Message: {
            /** @description email only: metadata of the attachments, never their content. */
            attachments: components["schemas"]["AttachmentMetadata"][];
            attempts: number;
            bcc: string[];
            body: string | null;
            /** @description The broadcast that sent this message, if any. */
            broadcastId: string | null;
            /** @description email only; empty for sms. */
            cc: string[];
            /** @enum {string} */
            channelType: "email" | "sms";
            /**
             * Format: date-time
             * @description The first click the provider reported (email).
             * @example 2026-11-23T08:00:00.000Z
             */
            clickedAt: string | null;
            contactId: string | null;
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            createdAt: string;
            deferredReason: components["schemas"]["DeferredReason"];
            /**
             * Format: date-time
             * @description While the message waits for its provider's pace (never an attempt or a failure): until when. `null` otherwise.
             * @example 2026-11-23T08:00:00.000Z
             */
            deferredUntil: string | null;
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            deliveredAt: string | null;
            /**
             * @description `inbound`: someone sent it to one of your numbers or addresses.
             * @enum {string}
             */
            direction: "outbound" | "inbound";
            error: components["schemas"]["MessageError"];
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            failedAt: string | null;
            from: string;
            headers: {
                [key: string]: string;
            };
            html: string | null;
            /** @example msg_01JD8Z5Q9X4N7W2M3K6P0R1T5V */
            id: string;
            /** @description sms only: the MMS media. */
            mediaUrls: string[];
            metadata: {
                [key: string]: string;
            };
            /**
             * @description The mode of the key that sent it (a broadcast's message: the broadcast's; an inbound one: `test` through the sandbox, else `live`). A key sees only its own mode's messages.
             * @enum {string}
             */
            mode: "live" | "test";
            /**
             * Format: date-time
             * @description The first open the provider reported (email).
             * @example 2026-11-23T08:00:00.000Z
             */
            openedAt: string | null;
            /**
             * @description Who sent it (until then the first provider planned: the sandbox for a test key), or for an inbound message who received it.
             * @enum {string}
             */
            provider: "resend" | "smtp" | "ses" | "telnyx" | "twilio" | "sandbox";
            providerMessageId: string | null;
            replyTo: string[];
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            scheduledAt: string | null;
            /** @description SMS only: GSM-7 (160/153) or UCS-2 (70/67) segments. */
            segments: number | null;
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            sentAt: string | null;
            /**
             * @description `scheduled -> queued -> sending -> sent -> delivered`; from `sending` or `sent` also `failed`, `bounced` (email) or `undelivered` (sms); `scheduled|queued -> canceled`. An inbound message is `received`.
             * @enum {string}
             */
            status: "scheduled" | "queued" | "sending" | "sent" | "delivered" | "failed" | "bounced" | "undelivered" | "canceled" | "received";
            subject: string | null;
            tags: string[];
            templateId: string | null;
            templateVersion: number | null;
            text: string | null;
            /** @description The recipient; for an email to several To recipients the first of them (`toAll` names every one). */
            to: string;
            /** @description Every To recipient in order, `to` first (one entry unless `to` was an array). */
            toAll: string[];
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            updatedAt: string;
        };
        MessageError: {
            code: string;
            message: string;
        } | null;
        /**
         * @example {
         *       "data": [
         *         {
         *           "id": "msg_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "channelType": "email",
         *           "direction": "outbound",
         *           "to": "ada@example.com",
         *           "toAll": [
         *             "ada@example.com"
         *           ],
         *           "from": "Acme <hello@example.com>",
         *           "cc": [],
         *           "bcc": [],
         *           "replyTo": [],
         *           "headers": {},
         *           "subject": "Your sign-in code",
         *           "text": "Your code is 123456.",
         *           "html": "<p>Your code is <strong>123456</strong>.</p>",
         *           "body": null,
         *           "mediaUrls": [],
         *           "attachments": [],
         *           "templateId": null,
         *           "templateVersion": null,
         *           "contactId": "con_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "broadcastId": null,
         *           "status": "delivered",
         *           "segments": null,
         *           "provider": "resend",
         *           "mode": "live",
         *           "providerMessageId": "4ef9a417-02e9-4d39-ad75-9611e0fcc33c",
         *           "error": null,
         *           "attempts": 1,
         *           "tags": [
         *             "auth"
         *           ],
         *           "metadata": {
         *             "userId": "usr_42"
         *           },
         *           "scheduledAt": null,
         *           "deferredUntil": null,
         *           "deferredReason": null,
         *           "sentAt": "2026-11-23T08:00:01.000Z",
         *           "deliveredAt": "2026-11-23T08:00:03.000Z",
         *           "failedAt": null,
         *           "openedAt": "2026-11-23T08:04:00.000Z",
         *           "clickedAt": null,
         *           "createdAt": "2026-11-23T08:00:00.000Z",
         *           "updatedAt": "2026-11-23T08:04:00.000Z"
         *         }
         *       ],
         *       "hasMore": true,
         *       "nextCursor": "eyJ0IjoiMjAyNi0xMS0yM1QwODowMDowMC4wMDBaIn0"
         *     }
         */
        MessageList: {
            data: components["schemas"]["Message"][];
            hasMore: boolean;
            /** @description Pass as `cursor` for the next page; null on the last page. */
            nextCursor: string | null;
        };
        MessageStatusEvent: {
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            createdAt: string;
            error: components["schemas"]["MessageError"];
            /** @description The link of a `clicked` entry. */
            link: string | null;
            /** @description The provider this step was about: each one tried (a failed try is a `sending` entry with its error), the one that sent it. */
            provider: string | null;
            /**
             * @description The status reached, or engagement (`opened`, `clicked`, `complained`, `delayed`) that leaves the status as it was.
             * @enum {string}
             */
            status: "scheduled" | "queued" | "sending" | "sent" | "delivered" | "failed" | "bounced" | "undelivered" | "canceled" | "received" | "opened" | "clicked" | "complained" | "delayed";
        };
        /** @description email: Tidings' own open and click tracking for this message, overriding its domain's `openTracking`/`clickTracking` (an option left out follows the domain; with an `sk_test_` key, off). */
        MessageTracking: {
            /** @description Each http(s) link goes through `{PUBLIC_API_URL}/c/{token}`, which records the click and redirects to it. */
            clicks?: boolean;
            /** @description A 1x1 image `{PUBLIC_API_URL}/o/{token}` records the first open. */
            opens?: boolean;
        };
        /**
         * @example {
         *       "id": "msg_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "channelType": "email",
         *       "direction": "outbound",
         *       "to": "ada@example.com",
         *       "toAll": [
         *         "ada@example.com"
         *       ],
         *       "from": "Acme <hello@example.com>",
         *       "cc": [],
         *       "bcc": [],
         *       "replyTo": [],
         *       "headers": {},
         *       "subject": "Your sign-in code",
         *       "text": "Your code is 123456.",
         *       "html": "<p>Your code is <strong>123456</strong>.</p>",
         *       "body": null,
         *       "mediaUrls": [],
         *       "attachments": [],
         *       "templateId": null,
         *       "templateVersion": null,
         *       "contactId": "con_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "broadcastId": null,
         *       "status": "delivered",
         *       "segments": null,
         *       "provider": "resend",
         *       "mode": "live",
         *       "providerMessageId": "4ef9a417-02e9-4d39-ad75-9611e0fcc33c",
         *       "error": null,
         *       "attempts": 1,
         *       "tags": [
         *         "auth"
         *       ],
         *       "metadata": {
         *         "userId": "usr_42"
         *       },
         *       "scheduledAt": null,
         *       "deferredUntil": null,
         *       "deferredReason": null,
         *       "sentAt": "2026-11-23T08:00:01.000Z",
         *       "deliveredAt": "2026-11-23T08:00:03.000Z",
         *       "failedAt": null,
         *       "openedAt": "2026-11-23T08:04:00.000Z",
         *       "clickedAt": null,
         *       "createdAt": "2026-11-23T08:00:00.000Z",
         *       "updatedAt": "2026-11-23T08:04:00.000Z",
         *       "events": [
         *         {
         *           "status": "queued",
         *           "provider": null,
         *           "link": null,
         *           "error": null,
         *           "createdAt": "2026-11-23T08:00:00.000Z"
         *         },
         *         {
         *           "status": "sending",
         *           "provider": null,
         *           "link": null,
         *           "error": null,
         *           "createdAt": "2026-11-23T08:00:00.500Z"
         *         },
         *         {
         *           "status": "sent",
         *           "provider": "resend",
         *           "link": null,
         *           "error": null,
         *           "createdAt": "2026-11-23T08:00:01.000Z"
         *         },
         *         {
         *           "status": "delivered",
         *           "provider": "resend",
         *           "link": null,
         *           "error": null,
         *           "createdAt": "2026-11-23T08:00:03.000Z"
         *         },
         *         {
         *           "status": "opened",
         *           "provider": null,
         *           "link": null,
         *           "error": null,
         *           "createdAt": "2026-11-23T08:04:00.000Z"
         *         }
         *       ]
         *     }
         */
        MessageWithEvents: components["schemas"]["Message"] & {
            /** @description The status history, oldest first. */
            events: components["schemas"]["MessageStatusEvent"][];
        };
        /**
         * @example {
         *       "id": "org_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "name": "Acme",
         *       "smsCountries": [
         *         "US",
         *         "CA"
         *       ],
         *       "createdAt": "2026-11-23T08:00:00.000Z"
         *     }
         */
        Organization: {
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            createdAt: string;
            /** @example org_01JD8Z5Q9X4N7W2M3K6P0R1T5V */
            id: string;
            name: string;
            /** @description Countries an SMS may go to; unless set, those of the organization's numbers. */
            smsCountries: string[];
        };
        /**
         * @example {
         *       "id": "pn_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "number": "+14155550123",
         *       "friendlyName": "Support line",
         *       "isDefault": true,
         *       "type": "local",
         *       "country": "US",
         *       "provider": "telnyx",
         *       "replies": {
         *         "help": "Acme alerts: reply STOP to unsubscribe. Help at acme.com/sms."
         *       },
         *       "messagesPerSecond": 1,
         *       "createdAt": "2026-11-23T08:00:00.000Z",
         *       "updatedAt": "2026-11-23T08:00:00.000Z"
         *     }
         */
        PhoneNumber: {
            country: string | null;
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            createdAt: string;
            friendlyName: string | null;
            /** @example pn_01JD8Z5Q9X4N7W2M3K6P0R1T5V */
            id: string;
            /** @description Used by message.send when an SMS has no `from`. At most one per organization. */
            isDefault: boolean;
            /** @description Messages per second this number sends at, shared by every send-worker: set by phoneNumber.update, else its type's default (a local long code 1, toll-free 3). */
            messagesPerSecond: number;
            /** @example +14155550123 */
            number: string;
            /** @description `telnyx`, or `sandbox` for test keys and installs without Telnyx. */
            provider: string;
            replies: components["schemas"]["KeywordReplies"];
            /** @enum {string} */
            type: "local" | "tollFree" | "mobile";
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            updatedAt: string;
        };
        /**
         * @example {
         *       "data": [
         *         {
         *           "id": "pn_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "number": "+14155550123",
         *           "friendlyName": "Support line",
         *           "isDefault": true,
         *           "type": "local",
         *           "country": "US",
         *           "provider": "telnyx",
         *           "replies": {
         *             "help": "Acme alerts: reply STOP to unsubscribe. Help at acme.com/sms."
         *           },
         *           "messagesPerSecond": 1,
         *           "createdAt": "2026-11-23T08:00:00.000Z",
         *           "updatedAt": "2026-11-23T08:00:00.000Z"
         *         }
         *       ],
         *       "hasMore": true,
         *       "nextCursor": "eyJ0IjoiMjAyNi0xMS0yM1QwODowMDowMC4wMDBaIn0"
         *     }
         */
        PhoneNumberList: {
            data: components["schemas"]["PhoneNumber"][];
            hasMore: boolean;
            /** @description Pass as `cursor` for the next page; null on the last page. */
            nextCursor: string | null;
        };
        /**
         * @example {
         *       "variables": {
         *         "firstName": "Ada",
         *         "code": "123456"
         *       },
         *       "version": 2
         *     }
         */
        PreviewTemplateBody: {
            /**
             * @description Values for the placeholders: any JSON object (strings, numbers, booleans, lists, objects), nested at most 5 levels, at most 100 keys in all, 64 KiB as JSON.
             * @default {}
             * @example {
             *       "firstName": "Ada",
             *       "order": {
             *         "number": 1042
             *       }
             *     }
             */
            variables?: {
                [key: string]: string | number | boolean | Record<string, unknown> | unknown[] | null;
            };
            /** @description The version to render; the latest when absent. */
            version?: number;
        };
        /**
         * @example {
         *       "number": "+14155550123",
         *       "friendlyName": "Support line"
         *     }
         */
        PurchasePhoneNumberBody: {
            /** @example Support line */
            friendlyName?: string;
            /**
             * @description A number from phoneNumber.searchAvailable, in E.164.
             * @example +14155550123
             */
            number: string;
        };
        /**
         * @description SMS only: a message due inside this daily window, in the recipient's local time, waits until it ends (`21:00` to `08:00` wraps midnight). Local time: the contact's `timezone` attribute (IANA) when set, else the number's country; where a country spans several zones, outside the window in all of them.
         * @example {
         *       "start": "21:00",
         *       "end": "08:00"
         *     }
         */
        QuietHours: {
            end: string;
            start: string;
        } | null;
        /**
         * @example {
         *       "since": "2026-11-24T00:00:00Z",
         *       "until": "2026-11-24T06:00:00Z",
         *       "status": "failed"
         *     }
         */
        ReplayWebhookBody: {
            /**
             * Format: date-time
             * @description Deliveries created at or after this time.
             */
            since: string;
            /**
             * @description `failed`: only deliveries that gave up; absent: every delivery in the range.
             * @enum {string}
             */
            status?: "failed";
            /**
             * Format: date-time
             * @description Deliveries created before this time; now when absent.
             */
            until?: string;
        };
        /**
         * @example {
         *       "count": 42
         *     }
         */
        ReplayWebhookResponse: {
            /** @description How many deliveries will be sent again. */
            count: number;
        };
        ResendAttachment: {
            /**
             * Format: byte
             * @description The file, base64-encoded.
             */
            content?: string;
            /** @description Makes it an inline image, referenced in `html` as `cid:...`. */
            content_id?: string;
            content_type?: string;
            /** @description Derived from `path` when absent. */
            filename?: string;
            /** @description An https URL fetched at send time. */
            path?: string;
        };
        /**
         * @example [
         *       {
         *         "from": "Acme <hello@example.com>",
         *         "to": "ada@example.com",
         *         "subject": "Welcome",
         *         "text": "Welcome aboard, Ada."
         *       },
         *       {
         *         "from": "Acme <hello@example.com>",
         *         "to": [
         *           "grace@example.com"
         *         ],
         *         "subject": "Welcome",
         *         "text": "Welcome aboard, Grace."
         *       }
         *     ]
         */
        ResendBatchBody: ({
            [key: string]: unknown;
        } & components["schemas"]["ResendSendEmailBody"])[];
        /**
         * @example {
         *       "data": [
         *         {
         *           "id": "msg_01JD8Z5Q9X4N7W2M3K6P0R1T5V"
         *         },
         *         {
         *           "id": "msg_01JD8Z5Q9X4N7W2M3K6P0R1T5W"
         *         }
         *       ]
         *     }
         */
        ResendBatchResponse: {
            /** @description The emails accepted, in the order given. */
            data: components["schemas"]["ResendEmailId"][];
            /** @description With `x-batch-validation: permissive` only. */
            errors?: {
                index: number;
                message: string;
            }[];
        };
        /**
         * @example {
         *       "object": "email",
         *       "id": "msg_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "to": [
         *         "ada@example.com"
         *       ],
         *       "from": "Acme <hello@example.com>",
         *       "created_at": "2026-11-23T08:00:00.000Z",
         *       "subject": "Your invoice",
         *       "html": "<p>Your invoice is attached.</p>",
         *       "text": "Your invoice is attached.",
         *       "cc": [
         *         "billing@example.com"
         *       ],
         *       "bcc": null,
         *       "reply_to": [
         *         "support@example.com"
         *       ],
         *       "last_event": "delivered",
         *       "scheduled_at": null,
         *       "tags": [
         *         {
         *           "name": "category",
         *           "value": "billing"
         *         }
         *       ]
         *     }
         */
        ResendEmail: {
            bcc: string[] | null;
            cc: string[] | null;
            created_at: string;
            from: string;
            html: string | null;
            id: string;
            /** @enum {string} */
            last_event: "bounced" | "canceled" | "clicked" | "complained" | "delivered" | "delivery_delayed" | "failed" | "opened" | "queued" | "scheduled" | "sent" | "suppressed";
            /** @enum {string} */
            object: "email";
            reply_to: string[] | null;
            scheduled_at: string | null;
            subject: string | null;
            tags: {
                name: string;
                value: string;
            }[];
            text: string | null;
            to: string[];
        };
        /**
         * @example {
         *       "id": "msg_01JD8Z5Q9X4N7W2M3K6P0R1T5V"
         *     }
         */
        ResendEmailId: {
            id: string;
        };
        /**
         * @example {
         *       "object": "email",
         *       "id": "msg_01JD8Z5Q9X4N7W2M3K6P0R1T5V"
         *     }
         */
        ResendEmailRef: {
            id: string;
            /** @enum {string} */
            object: "email";
        };
        ResendError: {
            /** @example to: required */
            message: string;
            /** @enum {string} */
            name: "validation_error" | "missing_api_key" | "invalid_api_key" | "restricted_api_key" | "invalid_access" | "not_found" | "method_not_allowed" | "invalid_idempotency_key" | "invalid_idempotent_request" | "concurrent_idempotent_requests" | "rate_limit_exceeded" | "internal_server_error";
            statusCode: number;
        };
        /**
         * @example {
         *       "from": "Acme <hello@example.com>",
         *       "to": [
         *         "ada@example.com"
         *       ],
         *       "cc": "billing@example.com",
         *       "reply_to": "support@example.com",
         *       "subject": "Your invoice",
         *       "html": "<p>Your invoice is attached.</p>",
         *       "text": "Your invoice is attached.",
         *       "headers": {
         *         "X-Entity-Ref-ID": "invoice-1042"
         *       },
         *       "attachments": [
         *         {
         *           "filename": "invoice-1042.txt",
         *           "content": "SW52b2ljZSAxMDQy",
         *           "content_type": "text/plain"
         *         }
         *       ],
         *       "tags": [
         *         {
         *           "name": "category",
         *           "value": "billing"
         *         }
         *       ]
         *     }
         */
        ResendSendEmailBody: {
            attachments?: components["schemas"]["ResendAttachment"][];
            bcc?: string | string[];
            cc?: string | string[];
            /** @description Absent: the default sender of the verified domain. */
            from?: string;
            headers?: {
                [key: string]: string;
            };
            html?: string;
            reply_to?: string | string[];
            /**
             * Format: date-time
             * @description An ISO 8601 time up to 30 days ahead (natural language such as "in 1 hour" is not understood).
             */
            scheduled_at?: string;
            subject?: string;
            tags?: components["schemas"]["ResendTag"][];
            /** @description A Tidings template (`tpl_...`) and its variables, instead of `subject`, `html` and `text`. */
            template?: {
                id: string;
                /**
                 * @description Values for the placeholders: any JSON object (strings, numbers, booleans, lists, objects), nested at most 5 levels, at most 100 keys in all, 64 KiB as JSON.
                 * @example {
                 *       "firstName": "Ada",
                 *       "order": {
                 *         "number": 1042
                 *       }
                 *     }
                 */
                variables?: {
                    [key: string]: string | number | boolean | Record<string, unknown> | unknown[] | null;
                };
            };
            text?: string;
            /** @description One address, or several as an array: one message to all of them (`to`, `cc` and `bcc` together at most 50). */
            to: string | string[];
        };
        /** @description Kept as the message tag `name:value` (message.list filters on it with `tag`). */
        ResendTag: {
            name: string;
            value: string;
        };
        /**
         * @example {
         *       "scheduled_at": "2026-12-01T09:00:00.000Z"
         *     }
         */
        ResendUpdateEmailBody: {
            /**
             * Format: date-time
             * @description The new time, ISO 8601, up to 30 days ahead.
             */
            scheduled_at: string;
        };
        /**
         * @example {
         *       "immediately": false
         *     }
         */
        RotateApiKeyBody: {
            /**
             * @description Stop the old secret now instead of letting it work for 24 hours.
             * @default false
             */
            immediately?: boolean;
        };
        /** @description Why the row at `index` of the request was not created. */
        RowError: {
            /** @enum {string} */
            code: "UNAUTHORIZED" | "FORBIDDEN" | "BAD_REQUEST" | "NOT_FOUND" | "CONFLICT" | "TOO_MANY_REQUESTS" | "RATE_LIMITED" | "INTERNAL_SERVER_ERROR" | "SERVICE_UNAVAILABLE";
            index: number;
            message: string;
        };
        /**
         * @example {
         *       "channelType": "sms",
         *       "from": "+14155550123",
         *       "to": "+15005550006",
         *       "body": "STOP"
         *     }
         */
        SandboxInboundBody: {
            /** @description The SMS text (keywords STOP, START, HELP... act as they would). */
            body?: string;
            /** @enum {string} */
            channelType: "email" | "sms";
            /**
             * @description The sender: an email address (email) or an E.164 number (sms).
             * @example +14155550123
             */
            from: string;
            html?: string;
            subject?: string;
            text?: string;
            /**
             * @description Your number or address it was sent to.
             * @example +15005550006
             */
            to: string;
        };
        /**
         * @example {
         *       "id": "seg_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "name": "Paying customers",
         *       "criteria": {
         *         "all": [
         *           {
         *             "field": "emailSubscribed",
         *             "op": "eq",
         *             "value": true
         *           },
         *           {
         *             "any": [
         *               {
         *                 "field": "attributes.plan",
         *                 "op": "in",
         *                 "value": [
         *                   "pro",
         *                   "team"
         *                 ]
         *               },
         *               {
         *                 "field": "attributes.seats",
         *                 "op": "gte",
         *                 "value": 10
         *               }
         *             ]
         *           }
         *         ]
         *       },
         *       "createdAt": "2026-11-23T08:00:00.000Z",
         *       "updatedAt": "2026-11-23T08:00:00.000Z"
         *     }
         */
        Segment: {
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            createdAt: string;
            criteria: components["schemas"]["SegmentCriteria"];
            /** @example seg_01JD8Z5Q9X4N7W2M3K6P0R1T5V */
            id: string;
            name: string;
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            updatedAt: string;
        };
        SegmentCondition: {
            /** @description email, phone, firstName, lastName, emailSubscribed, smsSubscribed, createdAt or attributes.<key> */
            field: string;
            /** @enum {string} */
            op: "eq" | "neq" | "contains" | "startsWith" | "gt" | "gte" | "lt" | "lte" | "exists" | "notExists" | "in";
            /** @description A string, number, boolean or ISO date; a list for `in`; absent for exists/notExists. */
            value?: unknown;
        };
        /**
         * @example {
         *       "data": [
         *         {
         *           "id": "con_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "email": "ada@example.com",
         *           "phone": "+14155550123",
         *           "firstName": "Ada",
         *           "lastName": "Lovelace",
         *           "attributes": {
         *             "plan": "pro",
         *             "seats": 12
         *           },
         *           "emailSubscribed": true,
         *           "smsSubscribed": false,
         *           "topics": [
         *             {
         *               "topicId": "top_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *               "subscribed": true
         *             }
         *           ],
         *           "createdAt": "2026-11-23T08:00:00.000Z",
         *           "updatedAt": "2026-11-23T08:05:00.000Z"
         *         }
         *       ],
         *       "hasMore": true,
         *       "nextCursor": "eyJ0IjoiMjAyNi0xMS0yM1QwODowMDowMC4wMDBaIn0"
         *     }
         */
        SegmentContactList: {
            data: components["schemas"]["Contact"][];
            hasMore: boolean;
            /** @description Pass as `cursor` for the next page; null on the last page. */
            nextCursor: string | null;
        };
        /**
         * @description Contacts matching all (or any) of the conditions; groups nest up to 5 deep, at most 200 conditions, and `contains`/`startsWith` values total at most 2000 characters. String comparisons on contact fields ignore case; `attributes.<key>` compares typed JSON (the number 10 is not the string "10"), and gt/gte/lt/lte compare numbers with numbers and ISO dates with dates. `neq` and `notExists` also match contacts without the field.
         * @example {
         *       "all": [
         *         {
         *           "field": "emailSubscribed",
         *           "op": "eq",
         *           "value": true
         *         },
         *         {
         *           "any": [
         *             {
         *               "field": "attributes.plan",
         *               "op": "in",
         *               "value": [
         *                 "pro",
         *                 "team"
         *               ]
         *             },
         *             {
         *               "field": "attributes.seats",
         *               "op": "gte",
         *               "value": 10
         *             }
         *           ]
         *         }
         *       ]
         *     }
         */
        SegmentCriteria: {
            all?: (components["schemas"]["SegmentCriteria"] | components["schemas"]["SegmentCondition"])[];
            any?: (components["schemas"]["SegmentCriteria"] | components["schemas"]["SegmentCondition"])[];
        };
        /**
         * @example {
         *       "data": [
         *         {
         *           "id": "seg_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "name": "Paying customers",
         *           "criteria": {
         *             "all": [
         *               {
         *                 "field": "emailSubscribed",
         *                 "op": "eq",
         *                 "value": true
         *               },
         *               {
         *                 "any": [
         *                   {
         *                     "field": "attributes.plan",
         *                     "op": "in",
         *                     "value": [
         *                       "pro",
         *                       "team"
         *                     ]
         *                   },
         *                   {
         *                     "field": "attributes.seats",
         *                     "op": "gte",
         *                     "value": 10
         *                   }
         *                 ]
         *               }
         *             ]
         *           },
         *           "createdAt": "2026-11-23T08:00:00.000Z",
         *           "updatedAt": "2026-11-23T08:00:00.000Z"
         *         }
         *       ],
         *       "hasMore": true,
         *       "nextCursor": "eyJ0IjoiMjAyNi0xMS0yM1QwODowMDowMC4wMDBaIn0"
         *     }
         */
        SegmentList: {
            data: components["schemas"]["Segment"][];
            hasMore: boolean;
            /** @description Pass as `cursor` for the next page; null on the last page. */
            nextCursor: string | null;
        };
        /**
         * @example {
         *       "id": "seg_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "name": "Paying customers",
         *       "criteria": {
         *         "all": [
         *           {
         *             "field": "emailSubscribed",
         *             "op": "eq",
         *             "value": true
         *           },
         *           {
         *             "any": [
         *               {
         *                 "field": "attributes.plan",
         *                 "op": "in",
         *                 "value": [
         *                   "pro",
         *                   "team"
         *                 ]
         *               },
         *               {
         *                 "field": "attributes.seats",
         *                 "op": "gte",
         *                 "value": 10
         *               }
         *             ]
         *           }
         *         ]
         *       },
         *       "createdAt": "2026-11-23T08:00:00.000Z",
         *       "updatedAt": "2026-11-23T08:00:00.000Z",
         *       "contactCount": 128,
         *       "countedAt": "2026-11-28T09:30:00.000Z"
         *     }
         */
        SegmentWithCount: components["schemas"]["Segment"] & {
            /** @description Contacts matching the criteria when counted (`countedAt`): at create and update, then again in the background when a read finds the count older than SEGMENT_COUNT_MAX_AGE_MS (60 s); a read never counts. */
            contactCount: number;
            /**
             * Format: date-time
             * @description When `contactCount` was counted.
             * @example 2026-11-23T08:00:00.000Z
             */
            countedAt?: string;
        };
        SendAttachment: {
            /**
             * Format: byte
             * @description The file, base64-encoded.
             */
            content?: string;
            /** @description Makes it an inline image: reference it in `html` as `<img src="cid:...">`. */
            contentId?: string;
            /** @description Derived from the filename when absent. */
            contentType?: string;
            filename: string;
            /** @description An https URL the worker fetches at send time (public addresses only, no redirects). */
            path?: string;
        };
        /**
         * @example {
         *       "messages": [
         *         {
         *           "channelType": "email",
         *           "to": "ada@example.com",
         *           "subject": "Welcome",
         *           "text": "Welcome aboard, Ada."
         *         },
         *         {
         *           "channelType": "sms",
         *           "to": "+14155550123",
         *           "body": "Your code is 123456."
         *         }
         *       ]
         *     }
         */
        SendBatchBody: {
            messages: ({
                [key: string]: unknown;
            } & components["schemas"]["SendMessageBody"])[];
        };
        /**
         * @example {
         *       "data": [
         *         {
         *           "id": "msg_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "channelType": "email",
         *           "direction": "outbound",
         *           "to": "ada@example.com",
         *           "toAll": [
         *             "ada@example.com"
         *           ],
         *           "from": "Acme <hello@example.com>",
         *           "cc": [],
         *           "bcc": [],
         *           "replyTo": [],
         *           "headers": {},
         *           "subject": "Your sign-in code",
         *           "text": "Your code is 123456.",
         *           "html": "<p>Your code is <strong>123456</strong>.</p>",
         *           "body": null,
         *           "mediaUrls": [],
         *           "attachments": [],
         *           "templateId": null,
         *           "templateVersion": null,
         *           "contactId": "con_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "broadcastId": null,
         *           "status": "delivered",
         *           "segments": null,
         *           "provider": "resend",
         *           "mode": "live",
         *           "providerMessageId": "4ef9a417-02e9-4d39-ad75-9611e0fcc33c",
         *           "error": null,
         *           "attempts": 1,
         *           "tags": [
         *             "auth"
         *           ],
         *           "metadata": {
         *             "userId": "usr_42"
         *           },
         *           "scheduledAt": null,
         *           "deferredUntil": null,
         *           "deferredReason": null,
         *           "sentAt": "2026-11-23T08:00:01.000Z",
         *           "deliveredAt": "2026-11-23T08:00:03.000Z",
         *           "failedAt": null,
         *           "openedAt": "2026-11-23T08:04:00.000Z",
         *           "clickedAt": null,
         *           "createdAt": "2026-11-23T08:00:00.000Z",
         *           "updatedAt": "2026-11-23T08:04:00.000Z"
         *         },
         *         null
         *       ],
         *       "errors": [
         *         {
         *           "index": 1,
         *           "code": "BAD_REQUEST",
         *           "message": "to: must be an E.164 phone number"
         *         }
         *       ]
         *     }
         */
        SendBatchResponse: {
            /** @description One entry per item, in order; null where the item failed. */
            data: (components["schemas"]["Message"] | null)[];
            errors: components["schemas"]["BatchItemError"][];
        };
        /**
         * @example {
         *       "scheduledAt": "2026-11-24T09:00:00Z"
         *     }
         */
        SendBroadcastBody: {
            /**
             * Format: date-time
             * @description Start at this time, up to 30 days ahead; now when absent.
             */
            scheduledAt?: string;
        };
        /**
         * @example {
         *       "channelType": "email",
         *       "to": "ada@example.com",
         *       "from": "Acme <hello@example.com>",
         *       "cc": [
         *         "billing@example.com"
         *       ],
         *       "replyTo": "support@example.com",
         *       "subject": "Your invoice",
         *       "html": "<p>Your invoice is attached. <img src=\"cid:logo\"></p>",
         *       "text": "Your invoice is attached.",
         *       "attachments": [
         *         {
         *           "filename": "invoice-1042.pdf",
         *           "content": "JVBERi0xLjQKJcfsj6IKMSAwIG9iago8PC9UeXBlL0NhdGFsb2c+PgplbmRvYmoKdHJhaWxlcgo8PC9Sb290IDEgMCBSPj4KJSVFT0YK",
         *           "contentType": "application/pdf"
         *         },
         *         {
         *           "filename": "logo.png",
         *           "path": "https://example.com/logo.png",
         *           "contentId": "logo"
         *         }
         *       ],
         *       "headers": {
         *         "X-Entity-Ref-ID": "invoice-1042"
         *       },
         *       "tags": [
         *         "billing"
         *       ],
         *       "metadata": {
         *         "userId": "usr_42"
         *       }
         *     }
         */
        SendMessageBody: {
            /** @description email: up to 20 files, at most 40 MiB decoded together. The message shows their metadata, never their content. */
            attachments?: components["schemas"]["SendAttachment"][];
            /** @description email: blind copy recipients; `to`, `cc` and `bcc` together at most 50. */
            bcc?: string[];
            /** @description The SMS text. */
            body?: string;
            /** @description email: copy recipients, each an address or `Name <address>`; `to`, `cc` and `bcc` together at most 50. */
            cc?: string[];
            /** @enum {string} */
            channelType: "email" | "sms";
            /** @description Links the message to a contact of the organization (404 when there is none); without `to`, sends to it. */
            contactId?: string;
            /** @description email: an address (optionally `Name <address>`) on a verified domain of the organization; sms: an E.164 number it owns. Absent: the default sender. Not checked for `sk_test_` keys. */
            from?: string;
            /** @description email: custom headers, up to 50. `From`, `To`, `Cc`, `Bcc`, `Subject`, `Date`, `Message-ID`, `Reply-To` and `Content-*` are refused, and so are headers that instruct a sending provider (`X-SES-*`, `X-Tidings-*`, `X-Resend-*`, `X-PM-*`, `X-Mailgun-*`, `X-SMTPAPI`, `X-MC-*`, `X-MSYS-*`, `X-MJ-*`, `X-Mailjet-*`). */
            headers?: {
                [key: string]: string;
            };
            html?: string;
            /** @description sms: up to 10 https URLs of media, sent as MMS where the provider supports it. */
            mediaUrls?: string[];
            /** @description A flat map of strings, up to 20 keys. */
            metadata?: {
                [key: string]: string;
            };
            /** @description email: one address or up to 10. */
            replyTo?: string | string[];
            /**
             * Format: date-time
             * @description Send at this time, up to 30 days ahead.
             */
            scheduledAt?: string;
            subject?: string;
            tags?: string[];
            /** @description Render this template instead of literal content. */
            templateId?: string;
            /** @description A version of the template; the latest when absent. */
            templateVersion?: number;
            text?: string;
            /**
             * @description An email address (email) or an E.164 number (sms). Email may name several To recipients as an array (one message; `to`, `cc` and `bcc` together at most 50). May be left out when `contactId` is given: the contact's email or phone is used.
             * @example ada@example.com
             */
            to?: string | string[];
            tracking?: components["schemas"]["MessageTracking"];
            /**
             * @description Values for the placeholders: any JSON object (strings, numbers, booleans, lists, objects), nested at most 5 levels, at most 100 keys in all, 64 KiB as JSON.
             * @example {
             *       "firstName": "Ada",
             *       "order": {
             *         "number": 1042
             *       }
             *     }
             */
            variables?: {
                [key: string]: string | number | boolean | Record<string, unknown> | unknown[] | null;
            };
        };
        /**
         * @example {
         *       "fromName": "Acme",
         *       "fromAddress": "hello@example.com",
         *       "replyTo": "support@example.com"
         *     }
         */
        SetDefaultSenderBody: {
            /**
             * Format: email
             * @description An address on this domain.
             * @example hello@example.com
             */
            fromAddress: string;
            /** @example Acme */
            fromName: string;
            /**
             * Format: email
             * @example support@example.com
             */
            replyTo?: string;
        };
        /**
         * @example {
         *       "id": "sup_3f0c2b9e8d7a4c1b9e0f6a5d4c3b2a10",
         *       "channelType": "sms",
         *       "address": "+14155550123",
         *       "mode": "live",
         *       "reason": "stopped",
         *       "createdAt": "2026-11-23T08:00:00.000Z"
         *     }
         */
        Suppression: {
            /** @description A lower-cased email address or an E.164 number, as sends compare it. */
            address: string;
            /** @enum {string} */
            channelType: "email" | "sms";
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            createdAt: string;
            /** @example sup_3f0c2b9e8d7a4c1b9e0f6a5d4c3b2a10 */
            id: string;
            /**
             * @description The list it is on: `test` (made by a test key, a sandbox bounce, complaint or STOP) stops only test sends; `live` stops every send. A key sees and lifts only its own mode's.
             * @enum {string}
             */
            mode: "live" | "test";
            /**
             * @description `bounced` and `complained`: the provider said so; `unsubscribed`: the contact was unsubscribed; `stopped`: the recipient texted STOP (or the SMS provider refused the send because they had); `manual`: added with suppression.create.
             * @enum {string}
             */
            reason: "bounced" | "complained" | "unsubscribed" | "stopped" | "manual";
        };
        /**
         * @example {
         *       "data": [
         *         {
         *           "id": "sup_3f0c2b9e8d7a4c1b9e0f6a5d4c3b2a10",
         *           "channelType": "sms",
         *           "address": "+14155550123",
         *           "mode": "live",
         *           "reason": "stopped",
         *           "createdAt": "2026-11-23T08:00:00.000Z"
         *         }
         *       ],
         *       "hasMore": true,
         *       "nextCursor": "eyJ0IjoiMjAyNi0xMS0yM1QwODowMDowMC4wMDBaIn0"
         *     }
         */
        SuppressionList: {
            data: components["schemas"]["Suppression"][];
            hasMore: boolean;
            /** @description Pass as `cursor` for the next page; null on the last page. */
            nextCursor: string | null;
        };
        /**
         * @example {
         *       "id": "tpl_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "name": "sign-in-code",
         *       "channelType": "email",
         *       "subject": "Your code, {{firstName}}",
         *       "html": "<p>Hi {{firstName}}, your code is <strong>{{code}}</strong>.</p>",
         *       "text": "Hi {{firstName}}, your code is {{code}}.",
         *       "body": null,
         *       "replyTo": [
         *         "Support <help@example.com>"
         *       ],
         *       "variables": [
         *         "firstName",
         *         "code"
         *       ],
         *       "version": 2,
         *       "deletedAt": null,
         *       "createdAt": "2026-11-23T08:00:00.000Z",
         *       "updatedAt": "2026-11-23T08:30:00.000Z"
         *     }
         */
        Template: {
            body: string | null;
            /** @enum {string} */
            channelType: "email" | "sms";
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            deletedAt: string | null;
            html: string | null;
            /** @example tpl_01JD8Z5Q9X4N7W2M3K6P0R1T5V */
            id: string;
            name: string;
            /** @description email: the Reply-To of messages sent with this template unless the send gives `replyTo`; `[]` for none. */
            replyTo: string[];
            subject: string | null;
            text: string | null;
            /**
             * Format: date-time
             * @description When this version was written.
             * @example 2026-11-23T08:00:00.000Z
             */
            updatedAt: string;
            /**
             * @description The variable names the content uses, derived from it.
             * @example [
             *       "firstName",
             *       "code"
             *     ]
             */
            variables: string[];
            /** @description The version shown; the latest unless `?version=N` asked for another. */
            version: number;
        };
        /**
         * @example {
         *       "data": [
         *         {
         *           "id": "tpl_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "name": "sign-in-code",
         *           "channelType": "email",
         *           "subject": "Your code, {{firstName}}",
         *           "html": "<p>Hi {{firstName}}, your code is <strong>{{code}}</strong>.</p>",
         *           "text": "Hi {{firstName}}, your code is {{code}}.",
         *           "body": null,
         *           "replyTo": [
         *             "Support <help@example.com>"
         *           ],
         *           "variables": [
         *             "firstName",
         *             "code"
         *           ],
         *           "version": 2,
         *           "deletedAt": null,
         *           "createdAt": "2026-11-23T08:00:00.000Z",
         *           "updatedAt": "2026-11-23T08:30:00.000Z"
         *         }
         *       ],
         *       "hasMore": true,
         *       "nextCursor": "eyJ0IjoiMjAyNi0xMS0yM1QwODowMDowMC4wMDBaIn0"
         *     }
         */
        TemplateList: {
            data: components["schemas"]["Template"][];
            hasMore: boolean;
            /** @description Pass as `cursor` for the next page; null on the last page. */
            nextCursor: string | null;
        };
        /**
         * @example {
         *       "templateId": "tpl_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "version": 2,
         *       "channelType": "email",
         *       "subject": "Your code, Ada",
         *       "html": "<p>Hi Ada, your code is <strong>123456</strong>.</p>",
         *       "text": "Hi Ada, your code is 123456.",
         *       "body": null,
         *       "segments": null,
         *       "encoding": null
         *     }
         */
        TemplatePreview: {
            body: string | null;
            /** @enum {string} */
            channelType: "email" | "sms";
            /**
             * @description SMS only: GSM-7 or UCS-2.
             * @enum {string|null}
             */
            encoding: "GSM-7" | "UCS-2" | null;
            html: string | null;
            /** @description SMS only: how many segments the body takes. */
            segments: number | null;
            subject: string | null;
            templateId: string;
            text: string | null;
            version: number;
        };
        /**
         * @example {
         *       "data": [
         *         {
         *           "id": "tpl_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "name": "sign-in-code",
         *           "channelType": "email",
         *           "subject": "Your code, {{firstName}}",
         *           "html": "<p>Hi {{firstName}}, your code is <strong>{{code}}</strong>.</p>",
         *           "text": "Hi {{firstName}}, your code is {{code}}.",
         *           "body": null,
         *           "replyTo": [
         *             "Support <help@example.com>"
         *           ],
         *           "variables": [
         *             "firstName",
         *             "code"
         *           ],
         *           "version": 2,
         *           "deletedAt": null,
         *           "createdAt": "2026-11-23T08:00:00.000Z",
         *           "updatedAt": "2026-11-23T08:30:00.000Z"
         *         }
         *       ],
         *       "hasMore": true,
         *       "nextCursor": "eyJ0IjoiMjAyNi0xMS0yM1QwODowMDowMC4wMDBaIn0"
         *     }
         */
        TemplateVersionList: {
            data: components["schemas"]["Template"][];
            hasMore: boolean;
            /** @description Pass as `cursor` for the next page; null on the last page. */
            nextCursor: string | null;
        };
        /**
         * @example {
         *       "id": "top_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "name": "Product news",
         *       "description": "What we shipped this month",
         *       "defaultSubscription": "opt_out",
         *       "visibility": "public",
         *       "createdAt": "2026-11-23T08:00:00.000Z",
         *       "updatedAt": "2026-11-23T08:00:00.000Z"
         *     }
         */
        Topic: {
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            createdAt: string;
            /**
             * @description `opt_in`: a contact is in the topic only once it subscribes. `opt_out`: every contact is in it until it unsubscribes.
             * @enum {string}
             */
            defaultSubscription: "opt_in" | "opt_out";
            description: string | null;
            /** @example top_01JD8Z5Q9X4N7W2M3K6P0R1T5V */
            id: string;
            name: string;
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            updatedAt: string;
            /**
             * @description `public` topics are listed on the preference page; `private` ones are not (a contact changes them only through the API).
             * @enum {string}
             */
            visibility: "public" | "private";
        };
        /**
         * @example {
         *       "data": [
         *         {
         *           "id": "top_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "name": "Product news",
         *           "description": "What we shipped this month",
         *           "defaultSubscription": "opt_out",
         *           "visibility": "public",
         *           "createdAt": "2026-11-23T08:00:00.000Z",
         *           "updatedAt": "2026-11-23T08:00:00.000Z"
         *         }
         *       ],
         *       "hasMore": true,
         *       "nextCursor": "eyJ0IjoiMjAyNi0xMS0yM1QwODowMDowMC4wMDBaIn0"
         *     }
         */
        TopicList: {
            data: components["schemas"]["Topic"][];
            hasMore: boolean;
            /** @description Pass as `cursor` for the next page; null on the last page. */
            nextCursor: string | null;
        };
        /**
         * @example {
         *       "lastName": "King",
         *       "attributes": {
         *         "plan": "team",
         *         "trial": null
         *       },
         *       "emailSubscribed": false
         *     }
         */
        UpdateContactBody: {
            /** @description Merged key by key into the stored attributes; a `null` value removes that key. */
            attributes?: {
                [key: string]: string | number | boolean | Record<string, unknown> | unknown[] | null;
            };
            /** Format: email */
            email?: string | null;
            emailSubscribed?: boolean;
            firstName?: string | null;
            lastName?: string | null;
            /**
             * @description A phone number with its country code; stored as E.164.
             * @example +14155550123
             */
            phone?: string | null;
            smsSubscribed?: boolean;
            /** @description Up to 100 choices, merged by topic into the contact's: a topic not named keeps its choice (or its default). */
            topics?: components["schemas"]["ContactTopic"][];
        };
        /**
         * @example {
         *       "openTracking": true,
         *       "clickTracking": true
         *     }
         */
        UpdateEmailDomainBody: {
            clickTracking?: boolean;
            openTracking?: boolean;
        };
        /**
         * @example {
         *       "smsCountries": [
         *         "US",
         *         "CA",
         *         "GB"
         *       ]
         *     }
         */
        UpdateOrganizationBody: {
            smsCountries?: string[];
        };
        /**
         * @example {
         *       "friendlyName": "Support line",
         *       "isDefault": true
         *     }
         */
        UpdatePhoneNumberBody: {
            /** @description `null` clears it. */
            friendlyName?: string | null;
            /** @description `true` makes this the default and unsets the previous one. */
            isDefault?: boolean;
            /** @description The number's sending rate (what its carrier registration allows); `null` goes back to its type's default. */
            messagesPerSecond?: number | null;
            replies?: components["schemas"]["KeywordReplies"] & unknown;
        };
        /**
         * @example {
         *       "name": "Paying customers (10+ seats)"
         *     }
         */
        UpdateSegmentBody: {
            criteria?: components["schemas"]["SegmentCriteria"];
            name?: string;
        };
        /**
         * @description Writes version N+1 from the latest version and these changes. The channel type cannot change.
         * @example {
         *       "subject": "Your sign-in code, {{firstName}}"
         *     }
         */
        UpdateTemplateBody: {
            /** @description SMS text; placeholders are not escaped. */
            body?: string;
            /** @description `null` removes the HTML part (text must remain). */
            html?: string | null;
            name?: string;
            /** @description `null` removes the Reply-To. */
            replyTo?: string | string[] | null;
            /** @description Email subject, one line; `{{name}}` placeholders, not HTML-escaped. */
            subject?: string;
            /** @description `null` removes the text part (html must remain). */
            text?: string | null;
        };
        /**
         * @example {
         *       "visibility": "private"
         *     }
         */
        UpdateTopicBody: {
            /**
             * @description `opt_in`: a contact is in the topic only once it subscribes. `opt_out`: every contact is in it until it unsubscribes.
             * @enum {string}
             */
            defaultSubscription?: "opt_in" | "opt_out";
            description?: string | null;
            name?: string;
            /**
             * @description `public` topics are listed on the preference page; `private` ones are not (a contact changes them only through the API).
             * @enum {string}
             */
            visibility?: "public" | "private";
        };
        /**
         * @example {
         *       "events": [
         *         "message.delivered",
         *         "message.bounced",
         *         "message.failed"
         *       ],
         *       "enabled": true
         *     }
         */
        UpdateWebhookBody: {
            description?: string | null;
            /** @description `true` re-enables a disabled endpoint. */
            enabled?: boolean;
            /**
             * @description The event types to receive.
             * @example [
             *       "message.delivered",
             *       "message.bounced"
             *     ]
             */
            events?: components["schemas"]["EventType"][];
            /**
             * @description Where events are POSTed. https in production; must resolve to public addresses only.
             * @example https://example.com/webhooks/tidings
             */
            url?: string;
        };
        /**
         * @description A one-time code sent to `to`. Never carries the code.
         * @example {
         *       "id": "ver_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "channelType": "sms",
         *       "to": "+14155550123",
         *       "status": "pending",
         *       "expiresAt": "2026-12-07T08:10:00.000Z",
         *       "sendAttempts": 1,
         *       "checkAttempts": 0,
         *       "messageIds": [
         *         "msg_01JD8Z5Q9X4N7W2M3K6P0R1T5W"
         *       ],
         *       "createdAt": "2026-12-07T08:00:00.000Z",
         *       "approvedAt": null
         *     }
         */
        Verification: {
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            approvedAt: string | null;
            /** @enum {string} */
            channelType: "sms" | "email";
            /** @description Codes checked, right or wrong. */
            checkAttempts: number;
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            expiresAt: string;
            /** @example ver_01JD8Z5Q9X4N7W2M3K6P0R1T5V */
            id: string;
            /** @description Its messages, oldest first (message.get shows each; a live one with the code masked). */
            messageIds: string[];
            /** @description Messages sent with a code (the first and each resend). */
            sendAttempts: number;
            /**
             * @description `pending`: a code is out; `approved`: the right code was checked (once); `expired`: past `expiresAt`; `max_attempts_reached`: five wrong codes; `canceled`; `failed`: its message could not be sent.
             * @enum {string}
             */
            status: "pending" | "approved" | "expired" | "canceled" | "max_attempts_reached" | "failed";
            to: string;
        };
        /**
         * @example {
         *       "id": "ver_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "status": "approved"
         *     }
         */
        VerificationCheck: {
            id: string;
            /**
             * @description `pending`: a code is out; `approved`: the right code was checked (once); `expired`: past `expiresAt`; `max_attempts_reached`: five wrong codes; `canceled`; `failed`: its message could not be sent.
             * @enum {string}
             */
            status: "pending" | "approved" | "expired" | "canceled" | "max_attempts_reached" | "failed";
        };
        /**
         * @example {
         *       "data": [
         *         {
         *           "id": "ver_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "channelType": "sms",
         *           "to": "+14155550123",
         *           "status": "pending",
         *           "expiresAt": "2026-12-07T08:10:00.000Z",
         *           "sendAttempts": 1,
         *           "checkAttempts": 0,
         *           "messageIds": [
         *             "msg_01JD8Z5Q9X4N7W2M3K6P0R1T5W"
         *           ],
         *           "createdAt": "2026-12-07T08:00:00.000Z",
         *           "approvedAt": null
         *         }
         *       ],
         *       "hasMore": true,
         *       "nextCursor": "eyJ0IjoiMjAyNi0xMS0yM1QwODowMDowMC4wMDBaIn0"
         *     }
         */
        VerificationList: {
            data: components["schemas"]["Verification"][];
            hasMore: boolean;
            /** @description Pass as `cursor` for the next page; null on the last page. */
            nextCursor: string | null;
        };
        /**
         * @example {
         *       "id": "whk_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "url": "https://example.com/webhooks/tidings",
         *       "mode": "live",
         *       "events": [
         *         "message.delivered",
         *         "message.bounced"
         *       ],
         *       "description": "Delivery receipts for the CRM",
         *       "enabled": true,
         *       "disabledReason": null,
         *       "disabledAt": null,
         *       "failingSince": null,
         *       "previousSecretExpiresAt": null,
         *       "createdAt": "2026-11-23T08:00:00.000Z",
         *       "updatedAt": "2026-11-23T08:00:00.000Z"
         *     }
         */
        Webhook: {
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            createdAt: string;
            description: string | null;
            /**
             * Format: date-time
             * @description When it was disabled; null while enabled.
             * @example 2026-11-23T08:00:00.000Z
             */
            disabledAt: string | null;
            /**
             * @description `manual`: by webhook.delete or an update with enabled false; `gone`: the endpoint answered 410; `failing`: it failed for 5 days straight.
             * @enum {string|null}
             */
            disabledReason: "manual" | "gone" | "failing" | null;
            enabled: boolean;
            events: components["schemas"]["EventType"][];
            /**
             * Format: date-time
             * @description Start of the current run of failed deliveries; null while healthy.
             * @example 2026-11-23T08:00:00.000Z
             */
            failingSince: string | null;
            /** @example whk_01JD8Z5Q9X4N7W2M3K6P0R1T5V */
            id: string;
            /**
             * @description The mode of the key that made it (the dashboard's: live, or test in an organization made for testing). It receives only that mode's message and broadcast events; a key of the other mode cannot see or change it (404).
             * @enum {string}
             */
            mode: "live" | "test";
            /**
             * Format: date-time
             * @description After a rotation, until when the previous secret still signs (a second `v1,` signature); null when it no longer does.
             * @example 2026-11-23T08:00:00.000Z
             */
            previousSecretExpiresAt: string | null;
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            updatedAt: string;
            url: string;
        };
        WebhookAttempt: {
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            at: string;
            durationMs: number;
            error: string | null;
            /** @description 1 for the first try. */
            number: number;
            /** @description The first 64 KiB of the answer. */
            responseBody: string | null;
            /** @description What the endpoint answered; null when no answer came (refused, timeout, connection error). */
            statusCode: number | null;
        };
        /**
         * @example {
         *       "id": "dlv_3f0c2b9e8d7a4c1b9e0f6a5d4c3b2a10",
         *       "webhookId": "whk_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "eventId": "evt_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "eventType": "message.delivered",
         *       "status": "succeeded",
         *       "attempts": 1,
         *       "nextAttemptAt": null,
         *       "lastAttempt": {
         *         "statusCode": 200,
         *         "durationMs": 84,
         *         "error": null,
         *         "at": "2026-11-23T08:05:00.120Z"
         *       },
         *       "createdAt": "2026-11-23T08:05:00.000Z",
         *       "updatedAt": "2026-11-23T08:05:00.204Z"
         *     }
         */
        WebhookDelivery: {
            attempts: number;
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            createdAt: string;
            /**
             * @description Also the `webhook-id` header of every attempt.
             * @example evt_01JD8Z5Q9X4N7W2M3K6P0R1T5V
             */
            eventId: string;
            eventType: components["schemas"]["EventType"];
            /** @example dlv_3f0c2b9e8d7a4c1b9e0f6a5d4c3b2a10 */
            id: string;
            lastAttempt: {
                /**
                 * Format: date-time
                 * @example 2026-11-23T08:00:00.000Z
                 */
                at: string;
                durationMs: number;
                error: string | null;
                statusCode: number | null;
            } | null;
            /**
             * Format: date-time
             * @description When the next try is due, while pending.
             * @example 2026-11-23T08:00:00.000Z
             */
            nextAttemptAt: string | null;
            /** @enum {string} */
            status: "pending" | "succeeded" | "failed";
            /**
             * Format: date-time
             * @example 2026-11-23T08:00:00.000Z
             */
            updatedAt: string;
            webhookId: string;
        };
        /**
         * @example {
         *       "id": "dlv_3f0c2b9e8d7a4c1b9e0f6a5d4c3b2a10",
         *       "webhookId": "whk_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "eventId": "evt_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "eventType": "message.delivered",
         *       "status": "succeeded",
         *       "attempts": 1,
         *       "nextAttemptAt": null,
         *       "lastAttempt": {
         *         "statusCode": 200,
         *         "durationMs": 84,
         *         "error": null,
         *         "at": "2026-11-23T08:05:00.120Z"
         *       },
         *       "createdAt": "2026-11-23T08:05:00.000Z",
         *       "updatedAt": "2026-11-23T08:05:00.204Z",
         *       "payload": {
         *         "id": "evt_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *         "type": "message.delivered",
         *         "createdAt": "2026-11-23T08:05:00.000Z",
         *         "data": {
         *           "id": "msg_01JD8Z5Q9X4N7W2M3K6P0R1T5V"
         *         }
         *       },
         *       "attemptLog": [
         *         {
         *           "number": 1,
         *           "statusCode": 200,
         *           "durationMs": 84,
         *           "responseBody": "ok",
         *           "error": null,
         *           "at": "2026-11-23T08:05:00.120Z"
         *         }
         *       ]
         *     }
         */
        WebhookDeliveryDetail: components["schemas"]["WebhookDelivery"] & {
            /** @description Every attempt, oldest first. */
            attemptLog: components["schemas"]["WebhookAttempt"][];
            /** @description The body POSTed: the event, whose `id` is also the `webhook-id` header. */
            payload: {
                /**
                 * Format: date-time
                 * @example 2026-11-23T08:00:00.000Z
                 */
                createdAt: string;
                data: {
                    [key: string]: unknown;
                };
                id: string;
                type: components["schemas"]["EventType"];
            } | null;
        };
        /**
         * @example {
         *       "data": [
         *         {
         *           "id": "dlv_3f0c2b9e8d7a4c1b9e0f6a5d4c3b2a10",
         *           "webhookId": "whk_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "eventId": "evt_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "eventType": "message.delivered",
         *           "status": "succeeded",
         *           "attempts": 1,
         *           "nextAttemptAt": null,
         *           "lastAttempt": {
         *             "statusCode": 200,
         *             "durationMs": 84,
         *             "error": null,
         *             "at": "2026-11-23T08:05:00.120Z"
         *           },
         *           "createdAt": "2026-11-23T08:05:00.000Z",
         *           "updatedAt": "2026-11-23T08:05:00.204Z"
         *         }
         *       ],
         *       "hasMore": true,
         *       "nextCursor": "eyJ0IjoiMjAyNi0xMS0yM1QwODowMDowMC4wMDBaIn0"
         *     }
         */
        WebhookDeliveryList: {
            data: components["schemas"]["WebhookDelivery"][];
            hasMore: boolean;
            /** @description Pass as `cursor` for the next page; null on the last page. */
            nextCursor: string | null;
        };
        /**
         * @example {
         *       "id": "whk_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "url": "https://example.com/webhooks/tidings",
         *       "mode": "live",
         *       "events": [
         *         "message.delivered",
         *         "message.bounced"
         *       ],
         *       "description": "Delivery receipts for the CRM",
         *       "enabled": true,
         *       "disabledReason": null,
         *       "disabledAt": null,
         *       "failingSince": null,
         *       "previousSecretExpiresAt": null,
         *       "createdAt": "2026-11-23T08:00:00.000Z",
         *       "updatedAt": "2026-11-23T08:00:00.000Z",
         *       "recentEvents": [
         *         {
         *           "id": "dlv_3f0c2b9e8d7a4c1b9e0f6a5d4c3b2a10",
         *           "webhookId": "whk_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "eventId": "evt_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "eventType": "message.delivered",
         *           "status": "succeeded",
         *           "attempts": 1,
         *           "nextAttemptAt": null,
         *           "lastAttempt": {
         *             "statusCode": 200,
         *             "durationMs": 84,
         *             "error": null,
         *             "at": "2026-11-23T08:05:00.120Z"
         *           },
         *           "createdAt": "2026-11-23T08:05:00.000Z",
         *           "updatedAt": "2026-11-23T08:05:00.204Z"
         *         }
         *       ]
         *     }
         */
        WebhookDetail: components["schemas"]["Webhook"] & {
            /** @description The last 20 deliveries, newest first. */
            recentEvents: components["schemas"]["WebhookDelivery"][];
        };
        /**
         * @example {
         *       "data": [
         *         {
         *           "id": "whk_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *           "url": "https://example.com/webhooks/tidings",
         *           "mode": "live",
         *           "events": [
         *             "message.delivered",
         *             "message.bounced"
         *           ],
         *           "description": "Delivery receipts for the CRM",
         *           "enabled": true,
         *           "disabledReason": null,
         *           "disabledAt": null,
         *           "failingSince": null,
         *           "previousSecretExpiresAt": null,
         *           "createdAt": "2026-11-23T08:00:00.000Z",
         *           "updatedAt": "2026-11-23T08:00:00.000Z"
         *         }
         *       ],
         *       "hasMore": true,
         *       "nextCursor": "eyJ0IjoiMjAyNi0xMS0yM1QwODowMDowMC4wMDBaIn0"
         *     }
         */
        WebhookList: {
            data: components["schemas"]["Webhook"][];
            hasMore: boolean;
            /** @description Pass as `cursor` for the next page; null on the last page. */
            nextCursor: string | null;
        };
        /**
         * @example {
         *       "id": "whk_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
         *       "url": "https://example.com/webhooks/tidings",
         *       "mode": "live",
         *       "events": [
         *         "message.delivered",
         *         "message.bounced"
         *       ],
         *       "description": "Delivery receipts for the CRM",
         *       "enabled": true,
         *       "disabledReason": null,
         *       "disabledAt": null,
         *       "failingSince": null,
         *       "previousSecretExpiresAt": null,
         *       "createdAt": "2026-11-23T08:00:00.000Z",
         *       "updatedAt": "2026-11-23T08:00:00.000Z",
         *       "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
         *     }
         */
        WebhookWithSecret: components["schemas"]["Webhook"] & {
            /**
             * @description The signing secret (Standard Webhooks). Shown only in this response; store it now.
             * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
             */
            secret: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    "apiKey.list": {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page (keyset pagination; stable while items are added). */
                cursor?: string;
                /** @description Items per page, 1..100. */
                limit?: number;
                /** @description Items to skip. Not together with `cursor`. */
                offset?: number | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of keys */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyList"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "stauts: unknown query parameter"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "apiKey.create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateApiKeyBody"];
            };
        };
        responses: {
            /** @description The new key, with its secret */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyWithSecret"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "name: required"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "CONFLICT",
                     *       "message": "An organization may have at most 100 API keys; delete one it no longer uses first"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "apiKey.delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "API key not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "apiKey.disable": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The disabled key */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKey"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "API key not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "apiKey.enable": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The enabled key */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKey"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "API key not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "apiKey.rotate": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["RotateApiKeyBody"];
            };
        };
        responses: {
            /** @description The key with its new secret */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeyWithSecret"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "nickname: unknown field"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "API key not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "audit.list": {
        parameters: {
            query?: {
                /** @description Only this kind of change. */
                action?: "apiKey.created" | "apiKey.rotated" | "apiKey.disabled" | "apiKey.enabled" | "apiKey.deleted" | "member.roleChanged" | "member.removed" | "member.twoFactorReset" | "member.twoFactorEnabled" | "member.twoFactorDisabled" | "member.passwordReset" | "invitation.created" | "invitation.revoked" | "invitation.accepted" | "webhook.created" | "webhook.updated" | "webhook.deleted" | "webhook.secretRotated" | "webhook.replayed" | "webhook.eventRetried" | "emailDomain.added" | "emailDomain.defaultSenderSet" | "emailDomain.updated" | "emailDomain.deleted" | "emailDomain.markedVerified" | "phoneNumber.purchased" | "phoneNumber.updated" | "phoneNumber.released" | "suppression.created" | "suppression.deleted" | "topic.created" | "topic.updated" | "topic.deleted" | "broadcast.created" | "broadcast.updated" | "broadcast.sent" | "broadcast.canceled" | "broadcast.retriedFailed" | "broadcast.deleted" | "organization.updated" | "sms.refused" | "verification.canceled" | "organization.suspended" | "organization.unsuspended" | "organization.liveKeysAllowed";
                /** @description Only changes by this key id or user id. */
                actorId?: string;
                /** @description The `nextCursor` of the previous page (keyset pagination; stable while items are added). */
                cursor?: string;
                /** @description Items per page, 1..100. */
                limit?: number;
                /** @description Items to skip. Not together with `cursor`. */
                offset?: number | null;
                /** @description Only changes at or after this time (ISO 8601). */
                since?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of audit events */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditEventList"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "stauts: unknown query parameter"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Actor not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "broadcast.list": {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page (keyset pagination; stable while items are added). */
                cursor?: string;
                /** @description Items per page, 1..100. */
                limit?: number;
                /** @description Items to skip. Not together with `cursor`. */
                offset?: number | null;
                /** @description `draft -> scheduled -> sending -> sent`, `scheduled|sending -> canceled`. `sent`: every message is created and none is still waiting for a provider. */
                status?: "draft" | "scheduled" | "sending" | "sent" | "canceled";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of broadcasts */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BroadcastList"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "stauts: unknown query parameter"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "broadcast.create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateBroadcastBody"];
            };
        };
        responses: {
            /** @description The draft */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Broadcast"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "name: required"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Template not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "broadcast.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The broadcast */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BroadcastWithCounts"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Broadcast not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "broadcast.delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Broadcast not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "CONFLICT",
                     *       "message": "Only draft broadcasts can be deleted; this one is sending."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "broadcast.cancel": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The canceled broadcast */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Broadcast"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Broadcast not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "CONFLICT",
                     *       "message": "Only scheduled or sending broadcasts can be canceled; this one is sent."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "broadcast.links": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The clicked links */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BroadcastLinks"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Broadcast not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "broadcast.retryFailed": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description How many messages were queued again */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BroadcastRetry"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Broadcast not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "CONFLICT",
                     *       "message": "Only sending or sent broadcasts have failed messages to retry; this one is draft."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "broadcast.send": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["SendBroadcastBody"];
            };
        };
        responses: {
            /** @description The broadcast, scheduled or sending */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Broadcast"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "nickname: unknown field"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Broadcast not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "CONFLICT",
                     *       "message": "Only draft broadcasts can be sent; this one is sending."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "contact.list": {
        parameters: {
            query?: {
                createdAfter?: string;
                createdBefore?: string;
                /** @description The `nextCursor` of the previous page (keyset pagination; stable while items are added). */
                cursor?: string;
                /** @description Exact address (case-insensitive). */
                email?: string;
                /** @description Items per page, 1..100. */
                limit?: number;
                /** @description Items to skip. Not together with `cursor`. */
                offset?: number | null;
                /** @description Exact number, in any format libphonenumber reads. */
                phone?: string;
                /** @description Case-insensitive prefix of first name, last name, full name or email. */
                q?: string;
                /** @description Only contacts matching the segment's criteria now. */
                segmentId?: string;
                /** @description `true`: subscribed to email or SMS (or both). `false`: unsubscribed from both. */
                subscribed?: "true" | "false";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of contacts */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ContactList"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "stauts: unknown query parameter"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Segment not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "contact.create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateContactBody"];
            };
        };
        responses: {
            /** @description The new contact */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Contact"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "nickname: unknown field"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended; or a test key changing shared configuration that live sends read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "topics: topic top_01JD8Z5Q9X4N7W2M3K6P0R1T5V not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "CONFLICT",
                     *       "message": "email: another contact in this organization has this email"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "contact.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The contact */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Contact"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Contact not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "contact.delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended; or a test key changing shared configuration that live sends read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Contact not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "contact.update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateContactBody"];
            };
        };
        responses: {
            /** @description The updated contact */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Contact"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "nickname: unknown field"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended; or a test key changing shared configuration that live sends read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Contact not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "CONFLICT",
                     *       "message": "phone: another contact in this organization has this phone"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "contact.bulkCreate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BulkCreateContactsBody"];
            };
        };
        responses: {
            /** @description The created contacts, in request order, and the refused rows */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BulkCreateContactsResult"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "contacts: required"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended; or a test key changing shared configuration that live sends read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "CONFLICT",
                     *       "message": "Idempotency-Key was already used with a different request body"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "contact.export": {
        parameters: {
            query?: {
                createdAfter?: string;
                createdBefore?: string;
                /** @description Exact address (case-insensitive). */
                email?: string;
                /** @description Exact number, in any format libphonenumber reads. */
                phone?: string;
                /** @description Case-insensitive prefix of first name, last name, full name or email. */
                q?: string;
                /** @description Only contacts matching the segment's criteria now. */
                segmentId?: string;
                /** @description `true`: subscribed to email or SMS (or both). `false`: unsubscribed from both. */
                subscribed?: "true" | "false";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The CSV */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": string;
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "stauts: unknown query parameter"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Segment not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emailDomain.list": {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page (keyset pagination; stable while items are added). */
                cursor?: string;
                /** @description Items per page, 1..100. */
                limit?: number;
                /** @description Items to skip. Not together with `cursor`. */
                offset?: number | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of domains */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EmailDomainList"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "stauts: unknown query parameter"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emailDomain.add": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AddEmailDomainBody"];
            };
        };
        responses: {
            /** @description The domain, pending verification */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EmailDomain"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "name: required"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended; or a test key changing shared configuration that live sends read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "CONFLICT",
                     *       "message": "Email domain example.com is already added to this organization"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: the email provider refused; an operator should check its configuration */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: the email provider is unavailable; retry later */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emailDomain.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The domain */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EmailDomain"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Email domain not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emailDomain.delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended; or a test key changing shared configuration that live sends read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Email domain not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: the email provider refused; an operator should check its configuration */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: the email provider is unavailable; retry later */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emailDomain.update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateEmailDomainBody"];
            };
        };
        responses: {
            /** @description The domain */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EmailDomain"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "nickname: unknown field"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended; or a test key changing shared configuration that live sends read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Email domain not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emailDomain.setDefault": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SetDefaultSenderBody"];
            };
        };
        responses: {
            /** @description The domain with its default sender */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EmailDomain"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "fromName: required"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended; or a test key changing shared configuration that live sends read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Email domain not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emailDomain.verify": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The domain with fresh statuses */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EmailDomain"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended; or a test key changing shared configuration that live sends read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Email domain not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "resend.emails.send": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ResendSendEmailBody"];
            };
        };
        responses: {
            /** @description The accepted email */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ResendEmailId"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 400,
                     *       "name": "validation_error",
                     *       "message": "to: required"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 401,
                     *       "name": "invalid_api_key",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 403,
                     *       "name": "invalid_access",
                     *       "message": "This organization is suspended: its API keys are refused and its messages are not sent until the operator of this install resumes it."
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 409,
                     *       "name": "invalid_idempotent_request",
                     *       "message": "Idempotency-Key was already used with a different request body"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 413,
                     *       "name": "validation_error",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 415,
                     *       "name": "validation_error",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 429,
                     *       "name": "rate_limit_exceeded",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 500,
                     *       "name": "internal_server_error",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 503,
                     *       "name": "internal_server_error",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
        };
    };
    "resend.emails.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The email */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ResendEmail"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 400,
                     *       "name": "validation_error",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 401,
                     *       "name": "invalid_api_key",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 403,
                     *       "name": "invalid_access",
                     *       "message": "This organization is suspended: its API keys are refused and its messages are not sent until the operator of this install resumes it."
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 404,
                     *       "name": "not_found",
                     *       "message": "Message not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 429,
                     *       "name": "rate_limit_exceeded",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 500,
                     *       "name": "internal_server_error",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 503,
                     *       "name": "internal_server_error",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
        };
    };
    "resend.emails.update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ResendUpdateEmailBody"];
            };
        };
        responses: {
            /** @description The rescheduled email */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ResendEmailRef"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 400,
                     *       "name": "validation_error",
                     *       "message": "scheduled_at: required"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 401,
                     *       "name": "invalid_api_key",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 403,
                     *       "name": "invalid_access",
                     *       "message": "This organization is suspended: its API keys are refused and its messages are not sent until the operator of this install resumes it."
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 404,
                     *       "name": "not_found",
                     *       "message": "Message not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 409,
                     *       "name": "validation_error",
                     *       "message": "Message is queued: only scheduled messages can be rescheduled"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 413,
                     *       "name": "validation_error",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 415,
                     *       "name": "validation_error",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 429,
                     *       "name": "rate_limit_exceeded",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 500,
                     *       "name": "internal_server_error",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 503,
                     *       "name": "internal_server_error",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
        };
    };
    "resend.emails.cancel": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The canceled email */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ResendEmailRef"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 400,
                     *       "name": "validation_error",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 401,
                     *       "name": "invalid_api_key",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 403,
                     *       "name": "invalid_access",
                     *       "message": "This organization is suspended: its API keys are refused and its messages are not sent until the operator of this install resumes it."
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 404,
                     *       "name": "not_found",
                     *       "message": "Message not found"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 409,
                     *       "name": "validation_error",
                     *       "message": "Message is sent: only scheduled or queued messages can be canceled"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 429,
                     *       "name": "rate_limit_exceeded",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 500,
                     *       "name": "internal_server_error",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 503,
                     *       "name": "internal_server_error",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
        };
    };
    "resend.batch.send": {
        parameters: {
            query?: never;
            header?: {
                /** @description `strict` (the default): one invalid email refuses the whole batch. `permissive`: the valid ones are sent, `errors` lists the others. */
                "x-batch-validation"?: "strict" | "permissive";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ResendBatchBody"];
            };
        };
        responses: {
            /** @description The accepted emails */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ResendBatchResponse"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 400,
                     *       "name": "validation_error",
                     *       "message": "body: Invalid input: expected array, received object"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 401,
                     *       "name": "invalid_api_key",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 403,
                     *       "name": "invalid_access",
                     *       "message": "This organization is suspended: its API keys are refused and its messages are not sent until the operator of this install resumes it."
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 409,
                     *       "name": "invalid_idempotent_request",
                     *       "message": "Idempotency-Key was already used with a different request body"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 413,
                     *       "name": "validation_error",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 415,
                     *       "name": "validation_error",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 429,
                     *       "name": "rate_limit_exceeded",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 500,
                     *       "name": "internal_server_error",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "statusCode": 503,
                     *       "name": "internal_server_error",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["ResendError"];
                };
            };
        };
    };
    "message.list": {
        parameters: {
            query?: {
                /** @description The messages a broadcast sent. */
                broadcastId?: string;
                channelType?: "email" | "sms";
                contactId?: string;
                createdAfter?: string;
                createdBefore?: string;
                /** @description The `nextCursor` of the previous page (keyset pagination; stable while items are added). */
                cursor?: string;
                /** @description `inbound`: someone sent it to one of your numbers or addresses. */
                direction?: "outbound" | "inbound";
                /** @description Items per page, 1..100. */
                limit?: number;
                /** @description Items to skip. Not together with `cursor`. */
                offset?: number | null;
                /** @description `scheduled -> queued -> sending -> sent -> delivered`; from `sending` or `sent` also `failed`, `bounced` (email) or `undelivered` (sms); `scheduled|queued -> canceled`. An inbound message is `received`. */
                status?: "scheduled" | "queued" | "sending" | "sent" | "delivered" | "failed" | "bounced" | "undelivered" | "canceled" | "received";
                tag?: string;
                templateId?: string;
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of messages */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageList"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "stauts: unknown query parameter"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This organization is suspended: its API keys are refused and its messages are not sent until the operator of this install resumes it."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Contact not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "message.send": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SendMessageBody"];
            };
        };
        responses: {
            /** @description The accepted message */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "msg_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
                     *       "channelType": "email",
                     *       "direction": "outbound",
                     *       "to": "ada@example.com",
                     *       "toAll": [
                     *         "ada@example.com"
                     *       ],
                     *       "from": "Acme <hello@example.com>",
                     *       "cc": [],
                     *       "bcc": [],
                     *       "replyTo": [],
                     *       "headers": {},
                     *       "subject": "Your sign-in code",
                     *       "text": "Your code is 123456.",
                     *       "html": "<p>Your code is <strong>123456</strong>.</p>",
                     *       "body": null,
                     *       "mediaUrls": [],
                     *       "attachments": [],
                     *       "templateId": null,
                     *       "templateVersion": null,
                     *       "contactId": "con_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
                     *       "broadcastId": null,
                     *       "status": "queued",
                     *       "segments": null,
                     *       "provider": "resend",
                     *       "mode": "live",
                     *       "providerMessageId": null,
                     *       "error": null,
                     *       "attempts": 0,
                     *       "tags": [
                     *         "auth"
                     *       ],
                     *       "metadata": {
                     *         "userId": "usr_42"
                     *       },
                     *       "scheduledAt": null,
                     *       "deferredUntil": null,
                     *       "deferredReason": null,
                     *       "sentAt": null,
                     *       "deliveredAt": null,
                     *       "failedAt": null,
                     *       "openedAt": "2026-11-23T08:04:00.000Z",
                     *       "clickedAt": null,
                     *       "createdAt": "2026-11-23T08:00:00.000Z",
                     *       "updatedAt": "2026-11-23T08:04:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Message"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "channelType: required"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This organization is suspended: its API keys are refused and its messages are not sent until the operator of this install resumes it."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Template not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "CONFLICT",
                     *       "message": "Idempotency-Key was already used with a different request body"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "message.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The message */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageWithEvents"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This organization is suspended: its API keys are refused and its messages are not sent until the operator of this install resumes it."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Message not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "message.cancel": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The canceled message */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "msg_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
                     *       "channelType": "email",
                     *       "direction": "outbound",
                     *       "to": "ada@example.com",
                     *       "toAll": [
                     *         "ada@example.com"
                     *       ],
                     *       "from": "Acme <hello@example.com>",
                     *       "cc": [],
                     *       "bcc": [],
                     *       "replyTo": [],
                     *       "headers": {},
                     *       "subject": "Your sign-in code",
                     *       "text": "Your code is 123456.",
                     *       "html": "<p>Your code is <strong>123456</strong>.</p>",
                     *       "body": null,
                     *       "mediaUrls": [],
                     *       "attachments": [],
                     *       "templateId": null,
                     *       "templateVersion": null,
                     *       "contactId": "con_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
                     *       "broadcastId": null,
                     *       "status": "canceled",
                     *       "segments": null,
                     *       "provider": "resend",
                     *       "mode": "live",
                     *       "providerMessageId": null,
                     *       "error": null,
                     *       "attempts": 1,
                     *       "tags": [
                     *         "auth"
                     *       ],
                     *       "metadata": {
                     *         "userId": "usr_42"
                     *       },
                     *       "scheduledAt": null,
                     *       "deferredUntil": null,
                     *       "deferredReason": null,
                     *       "sentAt": null,
                     *       "deliveredAt": null,
                     *       "failedAt": null,
                     *       "openedAt": "2026-11-23T08:04:00.000Z",
                     *       "clickedAt": null,
                     *       "createdAt": "2026-11-23T08:00:00.000Z",
                     *       "updatedAt": "2026-11-23T08:04:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Message"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This organization is suspended: its API keys are refused and its messages are not sent until the operator of this install resumes it."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Message not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "CONFLICT",
                     *       "message": "Message is sent: only scheduled or queued messages can be canceled"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "message.getSource": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The email source */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "message/rfc822": string;
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This organization is suspended: its API keys are refused and its messages are not sent until the operator of this install resumes it."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Message not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "message.sendBatch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SendBatchBody"];
            };
        };
        responses: {
            /** @description Per-item results */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "msg_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
                     *           "channelType": "email",
                     *           "direction": "outbound",
                     *           "to": "ada@example.com",
                     *           "toAll": [
                     *             "ada@example.com"
                     *           ],
                     *           "from": "Acme <hello@example.com>",
                     *           "cc": [],
                     *           "bcc": [],
                     *           "replyTo": [],
                     *           "headers": {},
                     *           "subject": "Your sign-in code",
                     *           "text": "Your code is 123456.",
                     *           "html": "<p>Your code is <strong>123456</strong>.</p>",
                     *           "body": null,
                     *           "mediaUrls": [],
                     *           "attachments": [],
                     *           "templateId": null,
                     *           "templateVersion": null,
                     *           "contactId": "con_01JD8Z5Q9X4N7W2M3K6P0R1T5V",
                     *           "broadcastId": null,
                     *           "status": "queued",
                     *           "segments": null,
                     *           "provider": "resend",
                     *           "mode": "live",
                     *           "providerMessageId": null,
                     *           "error": null,
                     *           "attempts": 0,
                     *           "tags": [
                     *             "auth"
                     *           ],
                     *           "metadata": {
                     *             "userId": "usr_42"
                     *           },
                     *           "scheduledAt": null,
                     *           "deferredUntil": null,
                     *           "deferredReason": null,
                     *           "sentAt": null,
                     *           "deliveredAt": null,
                     *           "failedAt": null,
                     *           "openedAt": "2026-11-23T08:04:00.000Z",
                     *           "clickedAt": null,
                     *           "createdAt": "2026-11-23T08:00:00.000Z",
                     *           "updatedAt": "2026-11-23T08:04:00.000Z"
                     *         },
                     *         null
                     *       ],
                     *       "errors": [
                     *         {
                     *           "index": 1,
                     *           "code": "BAD_REQUEST",
                     *           "message": "to: must be an E.164 phone number"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["SendBatchResponse"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "messages: required"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This organization is suspended: its API keys are refused and its messages are not sent until the operator of this install resumes it."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "CONFLICT",
                     *       "message": "Idempotency-Key was already used with a different request body"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "organization.get": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The organization */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Organization"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "stauts: unknown query parameter"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "organization.update": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateOrganizationBody"];
            };
        };
        responses: {
            /** @description The organization */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Organization"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "nickname: unknown field"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended; or a test key changing shared configuration that live sends read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "phoneNumber.list": {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page (keyset pagination; stable while items are added). */
                cursor?: string;
                /** @description Items per page, 1..100. */
                limit?: number;
                /** @description Items to skip. Not together with `cursor`. */
                offset?: number | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of numbers */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PhoneNumberList"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "stauts: unknown query parameter"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "phoneNumber.purchase": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PurchasePhoneNumberBody"];
            };
        };
        responses: {
            /** @description The number, now owned by this organization */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PhoneNumber"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "number: required"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended; or a test key changing shared configuration that live sends read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "CONFLICT",
                     *       "message": "Phone number +14155550123 is no longer available; search again and pick another"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: the provider refused; an operator should check its configuration */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: the provider is unavailable; retry later */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "phoneNumber.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The number */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PhoneNumber"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Phone number not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "phoneNumber.release": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Released */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended; or a test key changing shared configuration that live sends read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Phone number not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: the provider refused; an operator should check its configuration */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: the provider is unavailable; retry later */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "phoneNumber.update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdatePhoneNumberBody"];
            };
        };
        responses: {
            /** @description The number */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PhoneNumber"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "nickname: unknown field"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended; or a test key changing shared configuration that live sends read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Phone number not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: the provider refused; an operator should check its configuration */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: the provider is unavailable; retry later */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "phoneNumber.searchAvailable": {
        parameters: {
            query: {
                areaCode?: string;
                /** @description Digits the number must contain. */
                contains?: string;
                /** @description ISO 3166 alpha-2 country code. */
                country: string;
                limit?: number;
                /** @description Defaults to `local`. */
                type?: "local" | "tollFree" | "mobile";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Numbers that can be purchased now */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AvailablePhoneNumberList"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "stauts: unknown query parameter"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: the provider refused; an operator should check its configuration */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: the provider is unavailable; retry later */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "sandbox.inbound": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SandboxInboundBody"];
            };
        };
        responses: {
            /** @description The inbound message */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Message"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "channelType: required"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "segment.list": {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page (keyset pagination; stable while items are added). */
                cursor?: string;
                /** @description Items per page, 1..100. */
                limit?: number;
                /** @description Items to skip. Not together with `cursor`. */
                offset?: number | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of segments */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SegmentList"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "stauts: unknown query parameter"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "segment.create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateSegmentBody"];
            };
        };
        responses: {
            /** @description The new segment with its current contact count */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SegmentWithCount"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "name: required"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended; or a test key changing shared configuration that live sends read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "segment.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The segment */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SegmentWithCount"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Segment not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "segment.delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended; or a test key changing shared configuration that live sends read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Segment not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "segment.update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateSegmentBody"];
            };
        };
        responses: {
            /** @description The updated segment */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SegmentWithCount"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "nickname: unknown field"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended; or a test key changing shared configuration that live sends read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Segment not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "segment.listContacts": {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page (keyset pagination; stable while items are added). */
                cursor?: string;
                /** @description Items per page, 1..100. */
                limit?: number;
                /** @description Items to skip. Not together with `cursor`. */
                offset?: number | null;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of contacts */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SegmentContactList"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "stauts: unknown query parameter"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Segment not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "suppression.list": {
        parameters: {
            query?: {
                /** @description Exactly this address (case-insensitive for email). */
                address?: string;
                channelType?: "email" | "sms";
                /** @description The `nextCursor` of the previous page (keyset pagination; stable while items are added). */
                cursor?: string;
                /** @description Items per page, 1..100. */
                limit?: number;
                /** @description Items to skip. Not together with `cursor`. */
                offset?: number | null;
                /** @description `bounced` and `complained`: the provider said so; `unsubscribed`: the contact was unsubscribed; `stopped`: the recipient texted STOP (or the SMS provider refused the send because they had); `manual`: added with suppression.create. */
                reason?: "bounced" | "complained" | "unsubscribed" | "stopped" | "manual";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of suppressions */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SuppressionList"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "stauts: unknown query parameter"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "suppression.create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateSuppressionBody"];
            };
        };
        responses: {
            /** @description The suppression */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Suppression"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "channelType: required"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "CONFLICT",
                     *       "message": "ada@example.com is already suppressed"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "suppression.delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Lifted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Suppression not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "template.list": {
        parameters: {
            query?: {
                channelType?: "email" | "sms";
                /** @description The `nextCursor` of the previous page (keyset pagination; stable while items are added). */
                cursor?: string;
                /** @description Include soft-deleted templates. */
                includeDeleted?: "true" | "false";
                /** @description Items per page, 1..100. */
                limit?: number;
                /** @description Exact name. */
                name?: string;
                /** @description Items to skip. Not together with `cursor`. */
                offset?: number | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of templates */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TemplateList"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "stauts: unknown query parameter"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "template.create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateTemplateBody"];
            };
        };
        responses: {
            /** @description The new template */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Template"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "name: required"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended; or a test key changing shared configuration that live sends read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "template.get": {
        parameters: {
            query?: {
                /** @description Answer for a soft-deleted template too. */
                includeDeleted?: "true" | "false";
                /** @description An older version; the latest when absent. */
                version?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The template at that version */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Template"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "stauts: unknown query parameter"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Template not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "template.delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended; or a test key changing shared configuration that live sends read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Template not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "template.update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateTemplateBody"];
            };
        };
        responses: {
            /** @description The new version */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Template"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "nickname: unknown field"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended; or a test key changing shared configuration that live sends read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Template not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "template.preview": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PreviewTemplateBody"];
            };
        };
        responses: {
            /** @description The rendered content */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TemplatePreview"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "nickname: unknown field"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Template not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "template.listVersions": {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page (keyset pagination; stable while items are added). */
                cursor?: string;
                /** @description Answer for a soft-deleted template too. */
                includeDeleted?: "true" | "false";
                /** @description Items per page, 1..100. */
                limit?: number;
                /** @description Items to skip. Not together with `cursor`. */
                offset?: number | null;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of versions */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TemplateVersionList"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "stauts: unknown query parameter"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Template not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "topic.list": {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page (keyset pagination; stable while items are added). */
                cursor?: string;
                /** @description Items per page, 1..100. */
                limit?: number;
                /** @description Items to skip. Not together with `cursor`. */
                offset?: number | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of topics */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TopicList"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "stauts: unknown query parameter"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "topic.create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateTopicBody"];
            };
        };
        responses: {
            /** @description The new topic */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Topic"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "name: required"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended; or a test key changing shared configuration that live sends read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "topic.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The topic */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Topic"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Topic not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "topic.delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended; or a test key changing shared configuration that live sends read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Topic not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "topic.update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateTopicBody"];
            };
        };
        responses: {
            /** @description The updated topic */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Topic"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "nickname: unknown field"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended; or a test key changing shared configuration that live sends read */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Topic not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "verification.list": {
        parameters: {
            query?: {
                channelType?: "sms" | "email";
                /** @description The `nextCursor` of the previous page (keyset pagination; stable while items are added). */
                cursor?: string;
                /** @description Items per page, 1..100. */
                limit?: number;
                /** @description Items to skip. Not together with `cursor`. */
                offset?: number | null;
                /** @description `pending`: a code is out; `approved`: the right code was checked (once); `expired`: past `expiresAt`; `max_attempts_reached`: five wrong codes; `canceled`; `failed`: its message could not be sent. */
                status?: "pending" | "approved" | "expired" | "canceled" | "max_attempts_reached" | "failed";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of verifications */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VerificationList"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "stauts: unknown query parameter"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This organization is suspended: its API keys are refused and its messages are not sent until the operator of this install resumes it."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "verification.create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateVerificationBody"];
            };
        };
        responses: {
            /** @description The verification, pending */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Verification"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "channelType: required"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This organization is suspended: its API keys are refused and its messages are not sent until the operator of this install resumes it."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Template not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "CONFLICT",
                     *       "message": "Idempotency-Key was already used with a different request body"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "verification.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The verification */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Verification"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This organization is suspended: its API keys are refused and its messages are not sent until the operator of this install resumes it."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Verification not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "verification.cancel": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The canceled verification */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Verification"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This organization is suspended: its API keys are refused and its messages are not sent until the operator of this install resumes it."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Verification not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "CONFLICT",
                     *       "message": "Verification is approved; only a pending one can be canceled"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "verification.check": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CheckVerificationBody"];
            };
        };
        responses: {
            /** @description The outcome */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VerificationCheck"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "code: required"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This organization is suspended: its API keys are refused and its messages are not sent until the operator of this install resumes it."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Verification not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "CONFLICT",
                     *       "message": "Verification is already approved; a code works once"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhook.list": {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page (keyset pagination; stable while items are added). */
                cursor?: string;
                /** @description Items per page, 1..100. */
                limit?: number;
                /** @description Items to skip. Not together with `cursor`. */
                offset?: number | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of endpoints */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookList"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "stauts: unknown query parameter"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhook.create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateWebhookBody"];
            };
        };
        responses: {
            /** @description The endpoint, with its signing secret */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookWithSecret"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "url: required"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "CONFLICT",
                     *       "message": "This organization already has 20 enabled webhook endpoints, the most it may have; delete (disable) one before adding or enabling another."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhook.get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDetail"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Webhook not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhook.delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The disabled endpoint */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Webhook"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Webhook not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhook.update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateWebhookBody"];
            };
        };
        responses: {
            /** @description The updated endpoint */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Webhook"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "nickname: unknown field"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Webhook not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description CONFLICT: duplicate, or Idempotency-Key reuse */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "CONFLICT",
                     *       "message": "This organization already has 20 enabled webhook endpoints, the most it may have; delete (disable) one before adding or enabling another."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhook.listEvents": {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page (keyset pagination; stable while items are added). */
                cursor?: string;
                /** @description Items per page, 1..100. */
                limit?: number;
                /** @description Items to skip. Not together with `cursor`. */
                offset?: number | null;
                /** @description Only deliveries in this status. */
                status?: "pending" | "succeeded" | "failed";
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of deliveries */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryList"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "stauts: unknown query parameter"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Webhook not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhook.getEvent": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                deliveryId: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The delivery */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryDetail"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Webhook delivery not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhook.retryEvent": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                deliveryId: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The delivery, pending again */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryDetail"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Webhook not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhook.replay": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ReplayWebhookBody"];
            };
        };
        responses: {
            /** @description How many deliveries will go out again */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReplayWebhookResponse"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "since: required"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Webhook not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: the body is larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Request body is larger than 1048576 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description BAD_REQUEST: a body whose Content-Type is not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "Content-Type must be application/json (got \"text/plain\")"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhook.rotateSecret": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint with its new secret */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookWithSecret"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Webhook not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhook.test": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The delivery, pending */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            /** @description BAD_REQUEST: validation failed, invalid JSON or wrong content type */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "BAD_REQUEST",
                     *       "message": "id: Too big: expected string to have <=64 characters"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description UNAUTHORIZED: missing, unknown, disabled or deleted API key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "UNAUTHORIZED",
                     *       "message": "Invalid API key: unknown, disabled, rotated out or deleted"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description FORBIDDEN: the key may not do this, or the organization is suspended */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "FORBIDDEN",
                     *       "message": "This API key has sending permission only: it may call message.send, message.sendBatch, message.list, message.get, message.cancel and message.getSource"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description NOT_FOUND: no such resource in this organization */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "NOT_FOUND",
                     *       "message": "Webhook not found"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description TOO_MANY_REQUESTS: over the rate limit; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "TOO_MANY_REQUESTS",
                     *       "message": "Rate limit of 100 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description INTERNAL_SERVER_ERROR: unexpected; the message carries no internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "INTERNAL_SERVER_ERROR",
                     *       "message": "Internal server error; quote request id 3f1c... when reporting it"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: a database statement ran past DATABASE_STATEMENT_TIMEOUT_MS; see Retry-After */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "SERVICE_UNAVAILABLE",
                     *       "message": "The database did not answer within the 10000 ms one statement may take; narrow the request or retry later."
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
