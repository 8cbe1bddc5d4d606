import { PassThrough, Readable } from 'node:stream';
import { composeEmailSource, type KeyMode, type OutgoingAttachment } from '@tidings/providers';
import type { Message as MessageRow } from '@tidings/db';
import { attachmentStore } from '../attachments/attachment-store.ts';
import type { Deps } from '../deps.ts';
import { AppError, foundOr404 } from '../errors.ts';
import type { StoredAttachment } from './attachments.ts';
import { findMessageInOrg } from './message-read.store.ts';
import { droppedRecipients, outgoingEmail } from './outgoing-message.ts';
import { recipientAddress } from './recipients.ts';

/** An attachment whose bytes the source cannot carry: a part with no content and a header saying why. */
function omitted(a: StoredAttachment, reason: string): OutgoingAttachment & { headers: Record<string, string> } {
  return { filename: a.filename, contentType: a.contentType, contentId: a.contentId, content: Readable.from([]), headers: { 'X-Tidings-Content-Omitted': reason } };
}

/**
 * The attachments as the source shows them: inline content from the attachment store while it is kept (the
 * sandbox's for a while, a live message's until it reached its outcome); a `path` one is never fetched again by a
 * read, and bytes no longer kept are left out, each with `X-Tidings-Content-Omitted` naming why.
 */
async function sourceAttachments(deps: Pick<Deps, 'db' | 'config'>, message: MessageRow): Promise<OutgoingAttachment[]> {
  const store = attachmentStore(deps);
  const stored = (message.attachments ?? []) as StoredAttachment[];
  return Promise.all(
    stored.map(async (a) => {
      if (a.path) return omitted(a, 'fetched from its path at send time');
      const content = await store.open(message.orgId, a.id);
      // a PassThrough: MailComposer reads the stream once, as the provider does
      return content
        ? { filename: a.filename, contentType: a.contentType, contentId: a.contentId, content: content.pipe(new PassThrough()) }
        : omitted(a, 'no longer kept after sending');
    }),
  );
}

/**
 * message.getSource: the RFC 5322 source of an outbound email, composed again from the stored message exactly as
 * the SMTP provider composes it (nodemailer's MailComposer; Message-ID, Date and MIME boundaries derive from the
 * message, so the bytes match what was sent), with the same recipients (suppressed ones dropped) and headers
 * (List-Unsubscribe of a broadcast's email). Resend and SES compose their own MIME from the same fields. An SMS,
 * an inbound message, another organization's or another mode's message is NOT_FOUND.
 * @example const source = await getMessageSource(deps, orgId, 'msg_...', 'live'); // Buffer
 */
export async function getMessageSource(deps: Pick<Deps, 'db' | 'config' | 'sending'>, orgId: string, id: string, mode?: KeyMode): Promise<Buffer> {
  const message = foundOr404(await findMessageInOrg(deps.db, orgId, id, mode), 'Message');
  if (message.channelType !== 'email' || message.direction !== 'outbound') throw new AppError('NOT_FOUND', 'Message not found: only an outbound email has a source');
  // the recipients the send dropped as suppressed, not those suppressed by now (a bounce suppresses its address)
  const dropped = await droppedRecipients(deps, message.id);
  const kept = (list: string[]) => list.filter((r) => !dropped.has(recipientAddress(r)));
  const [first, ...rest] = kept([message.to, ...(message.additionalTo ?? [])]);
  const recipients = { to: first ?? message.to, additionalTo: rest, cc: kept(message.cc), bcc: kept(message.bcc) };
  const email = await outgoingEmail(deps, { ...message, ...recipients, attachments: [] }, {}, { checkSuppressions: false, stage: 'source' });
  return composeEmailSource({ ...email, attachments: await sourceAttachments(deps, message) });
}
