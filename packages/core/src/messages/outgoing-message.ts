import { MESSAGE_LIMITS } from '@tidings/contracts';
import type { Message as MessageRow } from '@tidings/db';
import type { OutgoingAttachment, OutgoingEmail, OutgoingSms } from '@tidings/providers';
import { FetchFailedError, fetchSafely, type Resolver } from '@tidings/webhooks';
import { attachmentStore } from '../attachments/attachment-store.ts';
import type { Deps } from '../deps.ts';
import type { StoredAttachment } from './attachments.ts';
import { trackHtml } from '../tracking/track-html.ts';

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

/** How the send-worker fetches `path` attachments, beyond configuration: tests bring their own CA and DNS. */
export type AttachmentFetchOptions = { ca?: string; resolve?: Resolver };

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

/**
 * The cc and bcc recipients to send to: those on the suppression list are dropped (one query, only when there are
 * copies), and named once in the status history on the first attempt. A suppressed `to` is handled before this:
 * the whole message fails as SUPPRESSED.
 * @example const { cc, bcc } = await dropSuppressedCopies(deps, messageRow);
 */
export async function dropSuppressedCopies({ db }: Pick<Deps, 'db'>, message: MessageRow): Promise<{ cc: string[]; bcc: string[] }> {
  if (message.cc.length === 0 && message.bcc.length === 0) return { cc: message.cc, bcc: message.bcc };
  const rows = await db.suppression.findMany({
    where: { orgId: message.orgId, recipient: { in: [...message.cc, ...message.bcc] }, mode: { in: ['live', message.mode] } },
    select: { recipient: true },
  });
  if (rows.length === 0) return { cc: message.cc, bcc: message.bcc };
  const suppressed = new Set(rows.map((r) => r.recipient));
  const dropped = (field: 'cc' | 'bcc') => message[field].filter((r) => suppressed.has(r)).map((r) => `${field} ${r}`);
  if (message.attempts <= 1) {
    await db.messageStatusEvent.create({
      data: {
        messageId: message.id,
        status: message.status,
        errorCode: 'SUPPRESSED',
        errorMessage: `Not sent to suppressed recipients (bounced, complained or unsubscribed): ${[...dropped('cc'), ...dropped('bcc')].join(', ')}`,
      },
    });
  }
  return { cc: message.cc.filter((r) => !suppressed.has(r)), bcc: message.bcc.filter((r) => !suppressed.has(r)) };
}

/**
 * What the provider is given for an email: content, recipients (suppressed copies dropped), the sender's headers
 * plus `extraHeaders` (a broadcast's List-Unsubscribe), and attachment streams. The html gets Tidings' open pixel
 * and click redirects when the message is tracked: here, on the final html, so every provider sends them.
 * @example const email = await outgoingEmail(deps, messageRow, {}, null); await provider.sendEmail(email);
 */
export async function outgoingEmail(
  deps: Pick<Deps, 'db' | 'config'>,
  message: MessageRow,
  options: AttachmentFetchOptions,
  extraHeaders: Record<string, string> | null = null,
): Promise<OutgoingEmail> {
  const { cc, bcc } = await dropSuppressedCopies(deps, message);
  return {
    messageId: message.id,
    from: message.from,
    to: message.to,
    subject: message.subject ?? '',
    html: message.html && (message.trackOpens || message.trackClicks) ? trackedHtml(deps, message, message.html) : message.html,
    text: message.text,
    cc,
    bcc,
    replyTo: message.replyTo,
    headers: { ...(message.headers as Record<string, string>), ...extraHeaders },
    attachments: await openAttachments(deps, message, options),
  };
}

function trackedHtml({ config }: Pick<Deps, 'config'>, message: MessageRow, html: string): string {
  return trackHtml(html, {
    opens: message.trackOpens,
    clicks: message.trackClicks,
    messageId: message.id,
    publicApiUrl: config.publicApiUrl,
    secret: config.broadcasts.unsubscribeSecret,
  });
}

/** What the provider is given for an SMS (an MMS with `mediaUrls`). */
export function outgoingSms(message: MessageRow): OutgoingSms {
  return { messageId: message.id, from: message.from, to: message.to, body: message.body ?? '', mediaUrls: message.mediaUrls };
}
