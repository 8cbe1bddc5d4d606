import type { OutgoingEmail } from './provider.types.ts';
import type Mail from 'nodemailer/lib/mailer';

/** The header that carries our message id, so a bounce arriving by another route can name the message. */
export const SMTP_MESSAGE_ID_HEADER = 'X-Tidings-Message-Id';

/**
 * The Message-ID of an email: derived from our message id (and the sender's domain), so a repeat after a lost
 * answer carries the same Message-ID and receiving servers and mail clients can recognise it as the same email.
 * @example smtpMessageId('msg_123', 'Acme <hello@acme.test>') // '<msg_123@acme.test>'
 */
export function smtpMessageId(messageId: string, from: string): string {
  const address = /<([^>]+)>/.exec(from)?.[1] ?? from;
  const domain = address.slice(address.lastIndexOf('@') + 1).trim() || 'tidings.invalid';
  return `<${messageId}@${domain}>`;
}

/**
 * nodemailer's description of an email, for the SMTP transport and for its source (message.getSource) alike: the
 * Message-ID, the Date and the MIME boundaries derive from the message, so composing it again gives the same bytes.
 * @example await transport.sendMail(mailOptionsOf(email));
 */
export function mailOptionsOf(email: OutgoingEmail): Mail.Options {
  return {
    from: email.from,
    to: email.to,
    cc: email.cc,
    bcc: email.bcc,
    replyTo: email.replyTo,
    subject: email.subject,
    ...(email.date ? { date: email.date } : {}),
    text: email.text ?? undefined,
    html: email.html ?? undefined,
    messageId: smtpMessageId(email.messageId, email.from),
    // random by default: from the message id, so the source rebuilt later matches what was sent
    baseBoundary: email.messageId.replace(/[^A-Za-z0-9]/g, ''),
    // streamed into the mail as it is written; an inline one is referenced by its Content-ID
    attachments: email.attachments?.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      content: a.content,
      ...(a.contentId ? { cid: a.contentId } : {}),
      ...('headers' in a ? { headers: a.headers as Record<string, string> } : {}),
    })),
    headers: { ...email.headers, [SMTP_MESSAGE_ID_HEADER]: email.messageId },
  } as Mail.Options;
}

/**
 * The RFC 5322 source of an email as the SMTP transport writes it (nodemailer's MailComposer, loaded on first use).
 * Bcc is not among its headers, as on the wire.
 * @example const source = await composeEmailSource(email); // Buffer starting 'Content-Type: ...'
 */
export async function composeEmailSource(email: OutgoingEmail): Promise<Buffer> {
  const { default: MailComposer } = await import('nodemailer/lib/mail-composer');
  return new MailComposer(mailOptionsOf(email)).compile().build();
}
