import { MESSAGE_LIMITS } from '@tidings/contracts';
import type { Message as MessageRow } from '@tidings/db';
import type { OutgoingAttachment, OutgoingEmail, OutgoingSms } from '@tidings/providers';
import { FetchFailedError, fetchSafely, type Resolver } from '@tidings/webhooks';
import { attachmentStore } from '../attachments/attachment-store.ts';
import type { Deps } from '../deps.ts';
import type { StoredAttachment } from './attachments.ts';
import { findSuppressedRecipients, insertSuppressedNote, listSuppressedNotes } from './delivery.store.ts';
import { recipientAddress } from './recipients.ts';

/** An attachment that could not be read at send time; `isRetryable` for a timeout, 5xx or dropped connection. */
export class AttachmentUnavailableError extends Error {
  constructor(
    message: string,
    readonly isRetryable: boolean,
  ) {
    super(message);
    this.name = 'AttachmentUnavailableError';
  }
}

/**
 * The error a failed attachment read is reported as (`ATTACHMENT_UNAVAILABLE`), whether it failed when opened or
 * half-way through the provider reading it; null for any other error.
 * @example const failure = attachmentFailure(error); if (failure) retryOrFail(failure.isRetryable);
 */
export function attachmentFailure(error: unknown): { message: string; isRetryable: boolean } | null {
  if (error instanceof AttachmentUnavailableError) return { message: error.message, isRetryable: error.isRetryable };
  if (error instanceof FetchFailedError) return { message: `An attachment could not be fetched: ${error.message}`, isRetryable: error.isRetryable };
  return null;
}

/** How the send-worker fetches `path` attachments, beyond configuration: tests bring their own CA and DNS. */
export type AttachmentFetchOptions = { ca?: string; resolve?: Resolver };

/**
 * Opens a message's attachments as streams, in order: inline content from the attachment store, `path` ones fetched
 * through the SSRF-safe client (public addresses only, https, no redirects, PROVIDER_TIMEOUT_MS, 40 MiB). Nothing is
 * read yet: the provider reads each stream once. Throws AttachmentUnavailableError naming the attachment.
 * @example const attachments = await openAttachments(deps, messageRow, {});
 */
export async function openAttachments(deps: Pick<Deps, 'db' | 'config'>, message: MessageRow, options: AttachmentFetchOptions): Promise<OutgoingAttachment[]> {
  const stored = (message.attachments ?? []) as StoredAttachment[];
  const opened: OutgoingAttachment[] = [];
  try {
    for (const [index, a] of stored.entries()) {
      const name = `attachments.${index} (${a.filename})`;
      let content: OutgoingAttachment['content'] | null;
      if (a.path) {
        try {
          content = (
            await fetchSafely(a.path, {
              allowLoopback: deps.config.webhookAllowLoopback,
              requireHttps: true,
              timeoutMs: deps.config.sendWorker.providerTimeoutMs,
              maxBytes: MESSAGE_LIMITS.attachmentBytes,
              ...options,
            })
          ).body;
        } catch (error) {
          if (!(error instanceof FetchFailedError)) throw error;
          throw new AttachmentUnavailableError(`${name} could not be fetched: ${error.message}`, error.isRetryable);
        }
      } else {
        content = await attachmentStore(deps).open(message.orgId, a.id);
        if (!content) throw new AttachmentUnavailableError(`${name}: its stored content is missing`, false);
      }
      opened.push({ filename: a.filename, contentType: a.contentType, contentId: a.contentId, content });
    }
  } catch (error) {
    for (const a of opened) a.content.destroy();
    throw error;
  }
  return opened;
}

/** How the history names the recipients a send dropped: `<note>to ada@example.com, cc bo@example.com`. */
const DROPPED_NOTE = 'Not sent to suppressed recipients (bounced, complained or unsubscribed): ';

/**
 * The recipients a send dropped, as its history named them: the source of an email rebuilt later leaves out the
 * same ones, whatever the suppression list says by then.
 * @example await droppedRecipients(deps, messageId) // Set { 'ada@example.com' }
 */
export async function droppedRecipients({ db }: Pick<Deps, 'db'>, messageId: string): Promise<Set<string>> {
  const notes = await listSuppressedNotes(db, messageId, DROPPED_NOTE);
  return new Set(
    notes.flatMap((n) =>
      n
        .errorMessage!.slice(DROPPED_NOTE.length)
        .split(', ')
        .map((entry) => entry.slice(entry.indexOf(' ') + 1)),
    ),
  );
}

/** The recipients of an email as they go to the provider. */
export type EmailRecipients = { to: string[]; cc: string[]; bcc: string[] };

/**
 * The To, cc and bcc recipients to send to: those on the suppression list are dropped (one query, only when there
 * are several recipients), and named once in the status history on the first attempt when `record`. A message
 * whose To recipients are all suppressed never gets here: it fails as SUPPRESSED when claimed (delivery.ts).
 * @example const { to, cc, bcc } = await dropSuppressedRecipients(deps, messageRow, { record: true });
 */
export async function dropSuppressedRecipients({ db }: Pick<Deps, 'db'>, message: MessageRow, { record }: { record: boolean }): Promise<EmailRecipients> {
  const all: EmailRecipients = { to: [message.to, ...(message.additionalTo ?? [])], cc: message.cc, bcc: message.bcc };
  if (all.to.length === 1 && message.cc.length === 0 && message.bcc.length === 0) return all;
  // a Cc may carry its display name: the suppression list and the note name the address
  const rows = await findSuppressedRecipients(db, message.orgId, [...all.to, ...all.cc, ...all.bcc].map(recipientAddress), message.mode);
  if (rows.length === 0) return all;
  const suppressed = new Set(rows.map((r) => r.recipient));
  const fields = ['to', 'cc', 'bcc'] as const;
  if (record && message.attempts <= 1) {
    const dropped = fields.flatMap((field) =>
      all[field]
        .map(recipientAddress)
        .filter((r) => suppressed.has(r))
        .map((r) => `${field} ${r}`),
    );
    await insertSuppressedNote(db, message.id, message.status, `${DROPPED_NOTE}${dropped.join(', ')}`);
  }
  const kept = (field: (typeof fields)[number]) => all[field].filter((r) => !suppressed.has(recipientAddress(r)));
  return { to: kept('to'), cc: kept('cc'), bcc: kept('bcc') };
}

/** What a provider is given for a message, made again for each provider tried (attachments are streams read once). */
export type OutgoingBuilders = { email(): Promise<OutgoingEmail>; sms(): OutgoingSms };

/**
 * What a provider is given for `message`: the message as stored, then the transforms of the dependencies in order
 * (List-Unsubscribe, tracking, a reset's working link, a verification's code: OutgoingTransform below), each looking
 * at the message once for the whole attempt. `stage` `source` (message.getSource) applies only those that show in
 * the recipient's mail as stored.
 * @example const build = await outgoingMessage(deps, row, {}); await provider.sendEmail(await build.email());
 */
export async function outgoingMessage(
  deps: Pick<Deps, 'db' | 'config' | 'sending'>,
  message: MessageRow,
  options: AttachmentFetchOptions,
  { checkSuppressions = true, stage = 'handOff' }: { checkSuppressions?: boolean; stage?: 'source' | 'handOff' } = {},
): Promise<OutgoingBuilders> {
  const rewrites = await rewritesFor(deps, message, stage);
  return {
    email: async () => applyRewrites(rewrites, 'email', await storedEmail(deps, message, options, checkSuppressions)),
    sms: () => applyRewrites(rewrites, 'sms', outgoingSms(message)),
  };
}

/**
 * An email as a provider is given it, transforms applied (see outgoingMessage).
 * @example const email = await outgoingEmail(deps, messageRow, {}); await provider.sendEmail(email);
 */
export async function outgoingEmail(
  deps: Pick<Deps, 'db' | 'config' | 'sending'>,
  message: MessageRow,
  options: AttachmentFetchOptions,
  settings: { checkSuppressions?: boolean; stage?: 'source' | 'handOff' } = {},
): Promise<OutgoingEmail> {
  return (await outgoingMessage(deps, message, options, settings)).email();
}

/**
 * The email as stored: content, recipients (suppressed ones dropped and named in the history, unless
 * `checkSuppressions` is false: the recipients are the message's as they are), the sender's headers, the Date it
 * was accepted, and attachment streams.
 */
async function storedEmail(deps: Pick<Deps, 'db' | 'config'>, message: MessageRow, options: AttachmentFetchOptions, checkSuppressions: boolean): Promise<OutgoingEmail> {
  const { to, cc, bcc } = checkSuppressions
    ? await dropSuppressedRecipients(deps, message, { record: true })
    : { to: [message.to, ...(message.additionalTo ?? [])], cc: message.cc, bcc: message.bcc };
  return {
    messageId: message.id,
    from: message.from,
    // one recipient stays a string: what every provider took before `to` could be a list
    to: to.length === 1 ? to[0]! : to,
    subject: message.subject ?? '',
    date: message.createdAt,
    html: message.html,
    text: message.text,
    cc,
    bcc,
    replyTo: message.replyTo,
    headers: { ...(message.headers as Record<string, string>) },
    attachments: await openAttachments(deps, message, options),
  };
}

/** What the provider is given for an SMS (an MMS with `mediaUrls`). */
export function outgoingSms(message: MessageRow): OutgoingSms {
  return { messageId: message.id, from: message.from, to: message.to, body: message.body ?? '', mediaUrls: message.mediaUrls };
}

/** How one transform rewrites what a provider is given for one message. */
export type Rewrite = { email?(email: OutgoingEmail): OutgoingEmail; sms?(sms: OutgoingSms): OutgoingSms };

/**
 * Something that changes an outgoing message on its way to the provider (List-Unsubscribe, tracking, a password
 * reset's working link, a verification's code), written by the module that owns it and listed in order in
 * sending-extensions.ts. It looks at the message once per attempt (one query at most) and answers its rewrite, or
 * null when it does not apply. `source`: applied to message.getSource as well (what the recipient's mail shows);
 * `handOff`: only to what a provider is given (a link or code that is never stored).
 */
export type OutgoingTransform = {
  name: string;
  stage: 'source' | 'handOff';
  rewriteFor(deps: Pick<Deps, 'db' | 'config'>, message: MessageRow): Rewrite | null | Promise<Rewrite | null>;
};

/**
 * The rewrites of `message`, in order, from the transforms of `stage` (a hand-off applies every transform; the
 * source only those of stage `source`).
 * @example const rewrites = await rewritesFor(deps, message, 'handOff'); const email = applyRewrites(rewrites, 'email', built);
 */
export async function rewritesFor(deps: Pick<Deps, 'db' | 'config' | 'sending'>, message: MessageRow, stage: 'source' | 'handOff'): Promise<Rewrite[]> {
  const rewrites: Rewrite[] = [];
  for (const transform of deps.sending.transforms) {
    if (stage === 'source' && transform.stage !== 'source') continue;
    const rewrite = await transform.rewriteFor(deps, message);
    if (rewrite) rewrites.push(rewrite);
  }
  return rewrites;
}

/** `outgoing` after each rewrite of its kind, in order. */
export function applyRewrites<K extends 'email' | 'sms'>(rewrites: Rewrite[], kind: K, outgoing: K extends 'email' ? OutgoingEmail : OutgoingSms): typeof outgoing {
  let result = outgoing;
  for (const rewrite of rewrites) {
    const apply = rewrite[kind] as ((value: typeof outgoing) => typeof outgoing) | undefined;
    if (apply) result = apply(result);
  }
  return result;
}
