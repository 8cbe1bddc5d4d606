import { verify, type KeyObject } from 'node:crypto';
import { SES_MESSAGE_TAG } from '../ses.provider.ts';
import { asCallbackEvent, CallbackSignatureError, CallbackStaleError, type CallbackReport } from './callback-outcome.ts';
import type { SnsCertificateCache } from './sns-certificates.ts';

/** An SNS message as posted to an HTTPS subscription. */
type SnsMessage = {
  Type?: string;
  MessageId?: string;
  Token?: string;
  TopicArn?: string;
  Subject?: string;
  Message?: string;
  Timestamp?: string;
  SignatureVersion?: string;
  Signature?: string;
  SigningCertURL?: string;
  SubscribeURL?: string;
};

type SesEvent = {
  eventType?: string;
  notificationType?: string;
  mail?: { messageId?: string; tags?: Record<string, string[]> };
  bounce?: { bounceType?: string; bouncedRecipients?: { diagnosticCode?: string }[] };
  click?: { link?: string };
  reject?: { reason?: string };
};

/** What a verified SNS post asks of us: confirm a subscription, or act on an SES event. */
export type SesCallback = { kind: 'subscription'; subscribeUrl: string } | CallbackReport | null;

export type SnsOptions = {
  /** A regular expression every certificate and subscription URL must match (the SNS hosts, by default). */
  urlPattern: string;
  /** The process's certificates (Providers.snsCertificates): bounded, shared by every callback. */
  certificates: SnsCertificateCache;
  /** When set, notifications of other topics are refused. */
  topicArn?: string;
  /** Fetches a certificate; the default GETs it with a timeout and no redirects. */
  fetchCertificate?: (url: string) => Promise<string>;
  /** The current time, for the freshness check of the message's Timestamp. */
  nowMs: number;
  /** Messages whose Timestamp is older than this are refused; SNS_MAX_AGE_MS by default. */
  maxAgeMs?: number;
};

/**
 * How old a signed SNS message may be. SNS keeps a message's Timestamp on every retry, and its HTTP retry policies
 * end within an hour, so anything older is a replay of a captured message rather than a delivery.
 */
export const SNS_MAX_AGE_MS = 60 * 60 * 1000;

const CERTIFICATE_TIMEOUT_MS = 5000;

async function fetchText(url: string): Promise<string> {
  const response = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(CERTIFICATE_TIMEOUT_MS) });
  if (!response.ok) throw new Error(`certificate answered ${response.status}`);
  return response.text();
}

/** Whether `url` may be fetched for SNS: it matches the configured pattern (https SNS hosts unless changed for tests). */
export function isSnsUrl(url: string | undefined, urlPattern: string): url is string {
  return typeof url === 'string' && new RegExp(urlPattern).test(url);
}

/** The text SNS signs: the listed fields of the message, each as `name\nvalue\n`, in this order. */
function stringToSign(message: SnsMessage): string {
  const fields =
    message.Type === 'Notification'
      ? (['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'] as const)
      : (['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'] as const);
  return fields.map((field) => (message[field] === undefined ? '' : `${field}\n${message[field]}\n`)).join('');
}

async function checkSignature(message: SnsMessage, options: SnsOptions): Promise<void> {
  const algorithm = message.SignatureVersion === '1' ? 'RSA-SHA1' : message.SignatureVersion === '2' ? 'RSA-SHA256' : null;
  if (!algorithm || !message.Signature) throw new CallbackSignatureError('Missing or unknown SNS signature version');
  if (!isSnsUrl(message.SigningCertURL, options.urlPattern) || !message.SigningCertURL.endsWith('.pem')) {
    throw new CallbackSignatureError('The SNS certificate URL is not an SNS host');
  }
  const url = message.SigningCertURL;
  let publicKey: KeyObject;
  try {
    publicKey = await options.certificates.get(url, options.fetchCertificate ?? fetchText);
  } catch {
    throw new CallbackSignatureError('The SNS certificate could not be fetched');
  }
  if (!verify(algorithm, Buffer.from(stringToSign(message)), publicKey, Buffer.from(message.Signature, 'base64'))) {
    throw new CallbackSignatureError('Invalid SNS signature');
  }
}

/** Reads an SES event (event publishing's `eventType`, or an identity notification's `notificationType`). */
function readSesEvent(text: string | undefined, eventId: string | undefined): CallbackReport | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text ?? '');
  } catch {
    return null; // signed but not an SES event: nothing to act on
  }
  const event = asCallbackEvent<SesEvent>(parsed, 'SES');
  const providerMessageId = event.mail?.messageId;
  if (!providerMessageId) return null;
  const messageId = event.mail?.tags?.[SES_MESSAGE_TAG]?.[0];
  const base = { providerMessageId, ...(eventId ? { eventId } : {}), ...(messageId ? { messageId } : {}) };
  switch (event.eventType ?? event.notificationType) {
    case 'Delivery':
      return { ...base, kind: 'delivered' };
    case 'Bounce': {
      const message = (event.bounce?.bouncedRecipients?.[0]?.diagnosticCode ?? 'The recipient server rejected the email').slice(0, 500);
      // only a permanent bounce means the address is bad; a transient one gave up on this email alone
      return event.bounce?.bounceType === 'Permanent'
        ? { ...base, kind: 'bounced', error: { code: 'BOUNCED', message } }
        : { ...base, kind: 'undelivered', error: { code: 'SOFT_BOUNCE', message } };
    }
    case 'Complaint':
      return { ...base, kind: 'complained' };
    case 'Reject':
    case 'Rendering Failure':
      return { ...base, kind: 'failed', error: { code: 'PROVIDER_FAILED', message: `SES did not send the email (${event.reject?.reason ?? event.eventType})`.slice(0, 500) } };
    case 'Open':
      return { ...base, kind: 'opened' };
    case 'Click':
      return { ...base, kind: 'clicked', link: event.click?.link ?? null };
    case 'DeliveryDelay':
      return { ...base, kind: 'delayed' };
    default:
      return null;
  }
}

/**
 * Verifies an SNS post (the signature, with a certificate fetched only from a URL matching `urlPattern`; the topic
 * when one is configured, and that its Timestamp is at most an hour old) and reads it: a subscription confirmation asks to be confirmed; a notification carries an
 * SES event (bounce, complaint, delivery, open, click, ...). Throws CallbackSignatureError when anything does not
 * check out, CallbackStaleError when the genuine message is too old.
 * @example const result = await verifySesCallback(rawBody, { urlPattern: config.ses.snsUrlPattern, nowMs: Date.now() });
 */
export async function verifySesCallback(rawBody: string, options: SnsOptions): Promise<SesCallback> {
  let message: SnsMessage;
  try {
    message = JSON.parse(rawBody) as SnsMessage;
  } catch {
    throw new CallbackSignatureError('Not an SNS message');
  }
  if (typeof message !== 'object' || message === null) throw new CallbackSignatureError('Not an SNS message');
  await checkSignature(message, options);
  // checked after the signature, which covers the Timestamp: a forged date is a 401 like any forgery
  const publishedMs = Date.parse(message.Timestamp ?? '');
  if (Number.isNaN(publishedMs)) throw new CallbackStaleError('The SNS message has no valid Timestamp');
  if (options.nowMs - publishedMs > (options.maxAgeMs ?? SNS_MAX_AGE_MS)) throw new CallbackStaleError('The SNS message is too old to act on');
  if (options.topicArn && message.TopicArn !== options.topicArn) throw new CallbackSignatureError('Notification of another SNS topic');
  if (message.Type === 'SubscriptionConfirmation') {
    if (!isSnsUrl(message.SubscribeURL, options.urlPattern)) throw new CallbackSignatureError('The subscription URL is not an SNS host');
    return { kind: 'subscription', subscribeUrl: message.SubscribeURL };
  }
  if (message.Type !== 'Notification') return null;
  // SNS signs MessageId and keeps it on every retry
  return readSesEvent(message.Message, message.MessageId);
}

/**
 * Confirms an SNS subscription by fetching its SubscribeURL (checked against the same pattern as certificates).
 * @example await confirmSnsSubscription(result.subscribeUrl, config.ses.snsUrlPattern);
 */
export async function confirmSnsSubscription(subscribeUrl: string, urlPattern: string): Promise<void> {
  if (!isSnsUrl(subscribeUrl, urlPattern)) throw new CallbackSignatureError('The subscription URL is not an SNS host');
  await fetchText(subscribeUrl);
}
