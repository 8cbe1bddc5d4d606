import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * What a tracking link names: an open of a message, or a click on one of its links (the link itself, signed).
 * `showsOnly`: the click of a sandbox or test message, which shows the link on a page of ours rather than redirecting
 * (our host must not redirect anywhere for whoever signs up and sends to themselves).
 */
export type TrackingSubject = { kind: 'open'; messageId: string } | { kind: 'click'; messageId: string; url: string; showsOnly?: boolean };

const ID = /^[A-Za-z0-9_]{1,64}$/;
// base64url of the link (links are kept under 2,000 characters by the rewriter)
const ENCODED_URL = /^[A-Za-z0-9_-]{1,2700}$/;
// a whole HMAC-SHA256 in base64url, as the unsubscribe tokens: checked as characters before the byte comparison
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

// The same HMAC-SHA256 as the `/u/` unsubscribe tokens, with the same secret: the purpose leads what is signed, so a
// token of one kind never reads as another.
function signatureOf(secret: string, subject: TrackingSubject): string {
  const signed = subject.kind === 'open' ? `open:${subject.messageId}` : `${subject.showsOnly ? 'click-page' : 'click'}:${subject.messageId}:${subject.url}`;
  return createHmac('sha256', secret).update(signed).digest('base64url');
}

/**
 * The token of a tracking link: the message id (and for a click, the link in base64url) and an HMAC-SHA256 over
 * them with the server's secret. The link is in the token, so the redirect needs no lookup and goes only where the
 * signature says.
 * @example trackingToken(secret, { kind: 'click', messageId: 'msg_1', url: 'https://example.com/a' }) // 'msg_1.aHR0...'
 */
export function trackingToken(secret: string, subject: TrackingSubject): string {
  const signature = signatureOf(secret, subject);
  return subject.kind === 'open' ? `${subject.messageId}.${signature}` : `${subject.messageId}.${Buffer.from(subject.url).toString('base64url')}.${signature}`;
}

/**
 * The subject of a token this server signed for `kind`, or null for anything else (malformed, tampered, another
 * secret's, the other kind's).
 * @example readTrackingToken(secret, 'click', token)?.url
 */
export function readTrackingToken<K extends TrackingSubject['kind']>(secret: string, kind: K, token: string): Extract<TrackingSubject, { kind: K }> | null {
  const parts = token.split('.');
  let subject: TrackingSubject;
  let signature: string | undefined;
  if (kind === 'open') {
    if (parts.length !== 2) return null;
    subject = { kind: 'open', messageId: parts[0]! };
    signature = parts[1];
  } else {
    if (parts.length !== 3 || !ENCODED_URL.test(parts[1]!)) return null;
    subject = { kind: 'click', messageId: parts[0]!, url: Buffer.from(parts[1]!, 'base64url').toString() };
    signature = parts[2];
  }
  if (!ID.test(subject.messageId) || !signature || !SIGNATURE.test(signature)) return null;
  const signs = (candidate: TrackingSubject) => timingSafeEqual(Buffer.from(signatureOf(secret, candidate)), Buffer.from(signature));
  if (signs(subject)) return subject as Extract<TrackingSubject, { kind: K }>;
  const shown = subject.kind === 'click' ? { ...subject, showsOnly: true } : null;
  return shown && signs(shown) ? (shown as Extract<TrackingSubject, { kind: K }>) : null;
}

/**
 * The public URL of a tracking link: `/o/{token}` (the open pixel) or `/c/{token}` (the click redirect).
 * @example trackingUrl('https://api.example.com', secret, { kind: 'open', messageId: 'msg_1' }) // 'https://api.example.com/o/msg_1.Xy...'
 */
export function trackingUrl(publicApiUrl: string, secret: string, subject: TrackingSubject): string {
  return `${publicApiUrl.replace(/\/+$/, '')}/${subject.kind === 'open' ? 'o' : 'c'}/${trackingToken(secret, subject)}`;
}
