import { createHash } from 'node:crypto';
import type { Message } from '@tidings/contracts';
import { beginIdempotentRequest, holdIdempotentRequest, releaseIdempotentRequest, requestFingerprint, sendMessage, type Deps, type Principal } from '@tidings/core';
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
 * key mode as the API's: a client that resends after a dropped connection gets the first message's id, and the
 * answer is committed with the message (one statement), so a reply lost after the commit still replays. The same
 * Message-ID always means the same mail (its bytes differ between two tries: boundaries, Date), so the key's
 * fingerprint is the Message-ID itself. A failure frees the key for the client's retry.
 * @example const id = await submitMessage(deps, principal, mail, ['ada@example.com']);
 */
export async function submitMessage(deps: Deps, principal: Principal, mail: ParsedMail, envelopeRecipients: string[]): Promise<string> {
  const { orgId, mode } = principal;
  const body = mailToSend(mail, envelopeRecipients);
  if (!mail.messageId) return (await sendMessage(deps, orgId, mode, body)).id;
  const key = idempotencyKeyOf(mail.messageId);
  const outcome = await beginIdempotentRequest(deps, orgId, mode, key, requestFingerprint('SMTP', 'DATA', key));
  if (outcome.kind === 'replay') return (JSON.parse(outcome.body) as Message).id;
  const stopRenewing = holdIdempotentRequest(deps, orgId, mode, key, outcome.reservedAt);
  try {
    const message = await sendMessage(deps, orgId, mode, body, { key, status: 202, body: (sent) => sent });
    return message.id;
  } catch (error) {
    // nothing was made: the client's retry with the same Message-ID runs again (the API keeps a 4xx answer, but an
    // SMTP client changes a refused mail before sending it again, under the same Message-ID more often than not)
    await releaseIdempotentRequest(deps, orgId, mode, key, outcome.reservedAt).catch((releaseError) =>
      deps.logger.warn({ err: releaseError, orgId }, 'could not free the Message-ID of a refused SMTP submission'),
    );
    throw error;
  } finally {
    stopRenewing();
  }
}
