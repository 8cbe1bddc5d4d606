/** What a verified provider callback says about one message; null from a parser means "nothing to do". */
export type CallbackOutcome = {
  providerMessageId: string;
  /** Our message id when the provider echoes it back. */
  messageId?: string;
  kind: 'delivered' | 'bounced' | 'complained' | 'undelivered' | 'failed';
  error?: { code: string; message: string };
};

/**
 * What a verified callback reports that is not a status change: engagement (opened, clicked with the link, delayed)
 * and inbound SMS. They are acknowledged; what they change is up to the engagement and inbound paths.
 */
export type CallbackNotice =
  | { kind: 'opened' | 'delayed'; providerMessageId: string; messageId?: string }
  | { kind: 'clicked'; providerMessageId: string; messageId?: string; link: string | null }
  | { kind: 'inbound'; providerMessageId: string; from: string; to: string; body: string };

/** The callback's signature, timestamp or secret did not check out: answer 401 and change nothing. */
export class CallbackSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CallbackSignatureError';
  }
}
