import { createHash } from 'node:crypto';
import type { Message } from '@tidings/contracts';
import { answerOfRepeat, IdempotencyKeyTaken, requestFingerprint, sendMessage, type Deps, type Principal } from '@tidings/core';
import type { ParsedMail } from 'mailparser';
import { mailToSend } from './mail-to-send.ts';

/**
 * The Idempotency-Key a Message-ID stands for. Its own namespace (`smtp:`), so it never meets an HTTP request's key,
 * and hashed when long: the API's keys are at most 255 characters.
 */
function idempotencyKeyOf(messageId: string): string {
  const key = `smtp:${messageId}`;
  return key.length <= 255 ? key : `smtp:sha256:${createHash('sha256').update(messageId).digest('hex')}`;
}

/**
 * Makes one email message of a submitted mail through message.send's own function (`sendMessage`), so every rule of a
 * send holds, and returns its id. The mail's Message-ID is its Idempotency-Key for 24 hours, kept per organization and
 * key mode as the API's: a client that resends after a dropped connection gets the first message's id. The key is
 * reserved by the statement that writes the message, with its answer: a reply lost after the commit still replays, and
 * a failure leaves the key free for the client's retry (nothing is ever left in progress). The same Message-ID always
 * means the same mail (its bytes differ between two tries: boundaries, Date), so the key's fingerprint is the
 * Message-ID itself.
 * @example const id = await submitMessage(deps, principal, mail, ['ada@example.com']);
 */
export async function submitMessage(deps: Deps, principal: Principal, mail: ParsedMail, envelopeRecipients: string[]): Promise<string> {
  const { orgId, mode } = principal;
  const { body, attachmentBytes } = mailToSend(mail, envelopeRecipients);
  // the bytes are held by `attachmentBytes` alone from here: the parsed mail lets them go
  mail.attachments.length = 0;
  const options = { attachmentBytes };
  if (!mail.messageId) return (await sendMessage({ deps, orgId, mode }, body, undefined, options)).id;
  const key = idempotencyKeyOf(mail.messageId);
  const fingerprint = requestFingerprint('SMTP', 'DATA', key);
  for (;;) {
    try {
      return (await sendMessage({ deps, orgId, mode }, body, { key, status: 202, body: (sent) => sent, reserve: { fingerprint } }, options)).id;
    } catch (error) {
      if (!(error instanceof IdempotencyKeyTaken)) throw error;
    }
    // sent before: the first message's id (null: its record was removed meanwhile, so this one may go)
    const repeat = await answerOfRepeat(deps, { orgId, mode, key }, fingerprint);
    if (repeat) return (JSON.parse(repeat.body) as Message).id;
  }
}
