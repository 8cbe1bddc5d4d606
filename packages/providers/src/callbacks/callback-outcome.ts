/** What a verified provider callback says about one message's status; null from a parser means "nothing to do". */
export type CallbackOutcome = {
  providerMessageId: string;
  /** The provider's id of this event, signed with it: the event is acted on once, however often it is posted. */
  eventId?: string;
  /** Our message id when the provider echoes it back. */
  messageId?: string;
  kind: 'delivered' | 'bounced' | 'undelivered' | 'failed';
  error?: { code: string; message: string };
  /** The provider refused because the recipient opted out (texted STOP): the number is suppressed as `stopped`. */
  isRecipientStopped?: boolean;
};

/**
 * Engagement with a message the provider delivered: the status stays, the history and the webhooks tell it.
 * `complained` also suppresses the address.
 */
export type CallbackEngagement = {
  kind: 'opened' | 'clicked' | 'complained' | 'delayed';
  providerMessageId: string;
  /** The provider's id of this event (see CallbackOutcome). */
  eventId?: string;
  messageId?: string;
  /** The link of a click. */
  link?: string | null;
};

/**
 * A message someone sent to one of our numbers or addresses. `to` is ours (it finds the organization), `from` is
 * theirs. Email content may come separately: `contentId` names what to fetch when the callback carries none.
 */
export type CallbackInbound = {
  kind: 'inbound';
  channelType: 'email' | 'sms';
  providerMessageId: string;
  /** The provider's id of this event (see CallbackOutcome). */
  eventId?: string;
  from: string;
  to: string;
  body?: string | null;
  subject?: string | null;
  text?: string | null;
  html?: string | null;
};

/** Everything a verified callback can report. */
export type CallbackReport = CallbackOutcome | CallbackEngagement | CallbackInbound;

/** The callback's signature, timestamp or secret did not check out: answer 401 and change nothing. */
export class CallbackSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CallbackSignatureError';
  }
}

/**
 * The callback is genuine but too old to act on (a replay of a captured message, or one delivered after its window):
 * answer 400 and change nothing.
 */
export class CallbackStaleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CallbackStaleError';
  }
}

/** The callback is genuine but its body is no event at all (`null`, a number, a list): answer 400 and change nothing. */
export class CallbackMalformedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CallbackMalformedError';
  }
}

/**
 * `value` (a signed body, parsed) as an event object, or throws CallbackMalformedError naming `provider`.
 * @example const event = asCallbackEvent<ResendEvent>(parsed, 'Resend');
 */
export function asCallbackEvent<T>(value: unknown, provider: string): T {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new CallbackMalformedError(`The ${provider} callback's body is not an event object`);
  return value as T;
}
