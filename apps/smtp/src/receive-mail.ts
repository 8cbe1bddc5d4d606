import { type Readable, Transform } from 'node:stream';
import { type ParsedMail, type SimpleParserOptions, simpleParser } from 'mailparser';
import { SmtpReply } from './smtp-reply.ts';

export type MailLimits = {
  maxBytes: number;
  maxMimeParts: number;
  /** Takes `bytes` more from the budget of content being received at once; false when it is used up. */
  takeBudget(bytes: number): boolean;
};

/** The limits a mail passed while it was still arriving: the client is answered at once and the connection ends. */
export const isRefusedMidStream = (error: unknown) => error instanceof SmtpReply && error.isMidStream;

/**
 * Parses the DATA content while it arrives, never holding the raw mail: its bytes are counted on the way, and past
 * `maxBytes` the parse stops with 552 5.3.4, and past the budget of its key with 452 4.3.1 (mid-stream refusals). More than `maxMimeParts` MIME parts (or headers
 * over mailparser's size) is a permanent 554 5.6.0: the same mail would be refused again.
 * @example const { mail, bytes } = await receiveMail(stream, { maxBytes: 48 << 20, maxMimeParts: 100, takeBudget: (n) => true });
 */
export async function receiveMail(stream: Readable, limits: MailLimits): Promise<{ mail: ParsedMail; bytes: number }> {
  let bytes = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, next) {
      bytes += chunk.length;
      if (bytes > limits.maxBytes) return next(new SmtpReply(552, '5.3.4', `Message too big: at most ${limits.maxBytes} bytes (SEND_BODY_LIMIT_BYTES)`, { isMidStream: true }));
      if (!limits.takeBudget(chunk.length)) {
        return next(new SmtpReply(452, '4.3.1', 'Too much mail being received at once with this API key: nothing was queued; send this mail again later', { isMidStream: true }));
      }
      next(null, chunk);
    },
  });
  // the source's errors (a dropped connection, a deadline) reach the parse through the counter; not pipeline(), which
  // would destroy the source on the counter's refusal while smtp-server still writes the client's bytes into it
  stream.once('error', (error) => counted.destroy(error));
  // a connection that closed while the mail waited for its turn, or mid-mail, ends the parse too (never a parse left waiting)
  const closedEarly = () => counted.destroy(new Error('The connection closed before the mail was received in full'));
  if (stream.destroyed) closedEarly();
  stream.once('close', () => stream.readableEnded || closedEarly());
  stream.pipe(counted);
  try {
    // the text is taken as it is: mailparser's html rendering of it (textAsHtml) is not used
    const options: SimpleParserOptions & { maxChildNodes: number } = { keepCidLinks: true, skipTextToHtml: true, skipTextLinks: true, maxChildNodes: limits.maxMimeParts };
    const mail = await simpleParser(counted, options);
    return { mail, bytes };
  } catch (error) {
    if ((error as { code?: string }).code !== 'EMAXLEN') throw error;
    const text = /child nodes/.test((error as Error).message) ? `Too many MIME parts: a mail may hold at most ${limits.maxMimeParts}` : 'The mail headers are too large to read';
    throw new SmtpReply(554, '5.6.0', text);
  }
}
