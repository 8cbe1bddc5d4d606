import { isReservedHeader, MESSAGE_LIMITS, type SendMessageBody } from '@tidings/contracts';
import type { AddressObject, Attachment, ParsedMail } from 'mailparser';
import { SmtpReply } from './smtp-reply.ts';

// Transport headers of the client's own submission: its trace (Received, Return-Path), its MIME framing, its
// signature over a message that is made again (DKIM-Signature) and its Sender, which the From decided here replaces.
const DROPPED_HEADERS = new Set(['mime-version', 'received', 'return-path', 'dkim-signature', 'sender', 'x-original-to', 'delivered-to']);

/** Every mailbox of an address header (or several), groups opened up. */
function mailboxes(field: AddressObject | AddressObject[] | undefined): { address: string; name: string }[] {
  const objects = field === undefined ? [] : Array.isArray(field) ? field : [field];
  return objects
    .flatMap((o) => o.value)
    .flatMap((a) => (a.group ? a.group : [a]))
    .filter((a): a is typeof a & { address: string } => Boolean(a.address))
    .map((a) => ({ address: a.address.toLowerCase(), name: a.name }));
}

/** `"Name" <address>`, or the bare address when there is no name. */
function mailbox({ address, name }: { address: string; name: string }): string {
  return name ? `"${name.replace(/(["\\])/g, '\\$1')}" <${address}>` : address;
}

/** The custom headers of the mail: first of each name, unfolded, without those Tidings sets or that belong to the transport. */
function customHeaders(mail: ParsedMail): Record<string, string> | undefined {
  const headers: Record<string, string> = {};
  for (const { key, line } of mail.headerLines) {
    if (isReservedHeader(key) || DROPPED_HEADERS.has(key)) continue;
    const name = line.slice(0, line.indexOf(':')).trim();
    if (Object.keys(headers).some((n) => n.toLowerCase() === key)) continue;
    headers[name] = line
      .slice(line.indexOf(':') + 1)
      .replace(/\r?\n[ \t]+/g, ' ')
      .trim();
  }
  return Object.keys(headers).length > 0 ? headers : undefined;
}

/**
 * An attachment as message.send takes it, its bytes apart (`content` left empty: see `attachmentBytes`); one with a
 * Content-ID shown inline keeps it, so `cid:` links in the html find it.
 */
function attachment(a: Attachment, index: number): NonNullable<SendMessageBody['attachments']>[number] {
  const filename = (a.filename ?? '')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: a file name with control characters is refused by the send; replace them instead
    .replace(/[\u0000-\u001f/\\]/g, '_')
    .trim()
    .slice(0, MESSAGE_LIMITS.filename);
  const isInline = a.cid !== undefined && (a.related || a.contentDisposition === 'inline');
  return {
    filename: filename || `${a.cid && isInline ? a.cid.replace(/[@<>\s]/g, '_') : `attachment-${index + 1}`}`,
    content: '',
    contentType: a.contentType,
    ...(isInline ? { contentId: a.cid } : {}),
  };
}

/**
 * A submitted mail as the body of message.send: From, To, Cc (with its names), Reply-To, Subject, text, html, attachments (inline ones
 * with their Content-ID) and the other headers under the API's rules. Envelope recipients that the headers do not name
 * are Bcc. Several To addresses stay To recipients of the one message.
 * The attachments' bytes, as the MIME parser decoded them, go beside the body (`attachmentBytes`, by index): stored
 * as they are rather than turned into base64 and back (for a 47 MiB mail, 45 MiB of text and 34 MiB more bytes).
 * Throws an SmtpReply for a mail that cannot be one message (no To, more than 50 recipients).
 * @example const { body, attachmentBytes } = mailToSend(await simpleParser(raw, { keepCidLinks: true }), ['ada@example.com']);
 */
export function mailToSend(mail: ParsedMail, envelopeRecipients: string[]): { body: SendMessageBody; attachmentBytes: Buffer[] } {
  const to = mailboxes(mail.to).map((m) => m.address);
  const cc = mailboxes(mail.cc);
  const named = new Set([...to, ...cc.map((m) => m.address)]);
  const bcc = [...new Set(envelopeRecipients.map((r) => r.toLowerCase()))].filter((r) => !named.has(r));
  const toList = [...new Set(to)];
  if (toList.length === 0) throw new SmtpReply(554, '5.6.0', 'The message has no To header: name at least one recipient in To');
  // Cc keeps its display names (once per address, none that is also a To)
  const copies = [...new Map(cc.map((m) => [m.address, m])).values()].filter((m) => !toList.includes(m.address)).map(mailbox);
  if (toList.length + copies.length + bcc.length > MESSAGE_LIMITS.recipients) {
    throw new SmtpReply(452, '4.5.3', `Too many recipients: To, Cc and Bcc together may name at most ${MESSAGE_LIMITS.recipients}`);
  }
  const [from] = mailboxes(mail.from);
  const replyTo = mailboxes(mail.replyTo).map(mailbox);
  const headers = customHeaders(mail);
  const body: SendMessageBody = {
    channelType: 'email',
    to: toList.length === 1 ? toList[0]! : toList,
    ...(from ? { from: mailbox(from) } : {}),
    ...(copies.length > 0 ? { cc: copies } : {}),
    ...(bcc.length > 0 ? { bcc } : {}),
    ...(replyTo.length > 0 ? { replyTo } : {}),
    ...(mail.subject ? { subject: mail.subject } : {}),
    ...(mail.text ? { text: mail.text } : {}),
    ...(mail.html ? { html: mail.html } : {}),
    ...(mail.attachments.length > 0 ? { attachments: mail.attachments.map(attachment) } : {}),
    ...(headers ? { headers } : {}),
  };
  return { body, attachmentBytes: mail.attachments.map((a) => a.content) };
}
