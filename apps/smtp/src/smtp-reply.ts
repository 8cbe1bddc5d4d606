import { AppError } from '@tidings/core';

/**
 * An SMTP refusal: `responseCode` is what smtp-server answers with, and the text starts with the enhanced status code
 * (RFC 3463), since the server's own table would pick a generic one for most of ours (452 -> 4.2.2, not 4.5.3).
 * @example throw new SmtpReply(452, '4.5.3', 'Too many recipients: at most 50 per message');
 */
export class SmtpReply extends Error {
  readonly responseCode: number;
  /** Given while the client is still sending the mail: it is answered at once and its connection ends. */
  readonly isMidStream: boolean;
  constructor(code: number, enhanced: string, text: string, options: { isMidStream?: boolean } = {}) {
    super(`${enhanced} ${text}`);
    this.name = 'SmtpReply';
    this.responseCode = code;
    this.isMidStream = options.isMidStream ?? false;
  }
}

/** Postgres or Redis did not answer: nothing was queued, the client should try again. */
export const storesUnavailable = () => new SmtpReply(451, '4.3.0', 'Temporary local problem: nothing was queued; try again later');

/**
 * What an error of the send means to an SMTP client: the send's own refusals (a From a live key may not use, a bad
 * address, content over a limit) are permanent 5xx with the API's message; anything else (Postgres or Redis away) is
 * 451 4.3.0, which the client retries.
 * @example callback(replyToSendError(error));
 */
export function replyToSendError(error: unknown): SmtpReply {
  if (error instanceof SmtpReply) return error;
  if (!(error instanceof AppError) || error.status >= 500) return storesUnavailable();
  if (error.code === 'TOO_MANY_REQUESTS' || error.code === 'RATE_LIMITED') return new SmtpReply(451, '4.7.0', error.message);
  if (error.code === 'CONFLICT') return new SmtpReply(451, '4.5.0', error.message);
  const field = error.message.split(':')[0] ?? '';
  if (field === 'from') return new SmtpReply(550, '5.7.1', error.message);
  if (field === 'to' || field.startsWith('cc') || field.startsWith('bcc') || field.startsWith('replyTo')) return new SmtpReply(553, '5.1.3', error.message);
  return new SmtpReply(554, '5.6.0', error.message);
}
