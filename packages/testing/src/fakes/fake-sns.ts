import { randomUUID, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Hono } from 'hono';
import { startFakeServer, type FakeServer } from './fake-server.ts';

const certificate = readFileSync(path.join(__dirname, 'sns/test-certificate.pem'), 'utf8');
const privateKey = readFileSync(path.join(__dirname, 'sns/test-private-key.pem'), 'utf8');

export type SnsPost = { body: string; headers: Record<string, string> };

export type FakeSns = FakeServer & {
  topicArn: string;
  /** The pattern to configure as SNS_URL_PATTERN so this fake's certificate and confirmation URLs are accepted. */
  urlPattern: string;
  /** Tokens of the subscriptions confirmed by a GET of their SubscribeURL. */
  confirmedTokens: string[];
  /** A signed SNS Notification carrying `sesEvent` (JSON) as SNS posts it to an HTTPS subscription. */
  notification(sesEvent: unknown, options?: { signatureVersion?: '1' | '2'; topicArn?: string; timestamp?: Date }): SnsPost;
  /** A signed SubscriptionConfirmation whose SubscribeURL points at this fake. */
  subscriptionConfirmation(): SnsPost & { token: string };
};

function signed(fields: Record<string, string | undefined>, names: string[], version: '1' | '2', certUrl: string): Record<string, string> {
  const text = names.map((name) => (fields[name] === undefined ? '' : `${name}\n${fields[name]}\n`)).join('');
  const signature = sign(version === '1' ? 'RSA-SHA1' : 'RSA-SHA256', Buffer.from(text), privateKey).toString('base64');
  return { ...(fields as Record<string, string>), SignatureVersion: version, Signature: signature, SigningCertURL: certUrl };
}

/**
 * A loopback SNS: serves its signing certificate, counts subscription confirmations, and signs notifications and
 * confirmations exactly as SNS does (SignatureVersion 1: SHA1withRSA, 2: SHA256withRSA over the canonical fields).
 * @example const sns = await startFakeSns(); const post = sns.notification({ eventType: 'Delivery', mail: { messageId } });
 */
export async function startFakeSns(): Promise<FakeSns> {
  const confirmedTokens: string[] = [];
  const routes = new Hono()
    .get('/SimpleNotificationService-test.pem', (c) => c.body(certificate, 200, { 'content-type': 'application/x-pem-file' }))
    // the same certificate under any name, as a flood of distinct certificate URLs would find it
    .get('/certs/:name', (c) => c.body(certificate, 200, { 'content-type': 'application/x-pem-file' }))
    .get('/confirm', (c) => {
      confirmedTokens.push(c.req.query('Token') ?? '');
      return c.body('<ConfirmSubscriptionResponse/>', 200, { 'content-type': 'text/xml' });
    });
  const server = await startFakeServer(routes);
  const topicArn = 'arn:aws:sns:us-east-1:123456789012:tidings-ses-events';
  const certUrl = `${server.url}/SimpleNotificationService-test.pem`;
  const post = (fields: Record<string, string>) => ({
    body: JSON.stringify(fields),
    headers: { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': fields.Type! },
  });
  return Object.assign(server, {
    topicArn,
    urlPattern: `^${server.url.replace(/\./g, '\\.')}/`,
    confirmedTokens,
    notification(sesEvent: unknown, options: { signatureVersion?: '1' | '2'; topicArn?: string; timestamp?: Date } = {}) {
      const Timestamp = (options.timestamp ?? new Date()).toISOString();
      const fields = { Type: 'Notification', MessageId: randomUUID(), TopicArn: options.topicArn ?? topicArn, Message: JSON.stringify(sesEvent), Timestamp };
      return post(signed(fields, ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'], options.signatureVersion ?? '2', certUrl));
    },
    subscriptionConfirmation() {
      const token = randomUUID().replace(/-/g, '');
      const fields = {
        Type: 'SubscriptionConfirmation',
        MessageId: randomUUID(),
        Token: token,
        TopicArn: topicArn,
        Message: `You have chosen to subscribe to the topic ${topicArn}.`,
        SubscribeURL: `${server.url}/confirm?Action=ConfirmSubscription&TopicArn=${encodeURIComponent(topicArn)}&Token=${token}`,
        Timestamp: new Date().toISOString(),
      };
      return { ...post(signed(fields, ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'], '1', certUrl)), token };
    },
  });
}
