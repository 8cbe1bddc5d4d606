/** What a verified provider callback says about one message; null from a parser means "nothing to do". */
export type CallbackOutcome = {
  providerMessageId: string;
  /** Our message id when the provider echoes it back. */
  messageId?: string;
  kind: 'delivered' | 'bounced' | 'complained' | 'undelivered' | 'failed';
  error?: { code: string; message: string };
};

/** The callback's signature, timestamp or secret did not check out: answer 401 and change nothing. */
export class CallbackSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CallbackSignatureError';
  }
}
