import type { SESv2Client } from '@aws-sdk/client-sesv2';
import { isRateLimitStatus, isRetryableStatus, ProviderError } from './provider-error.ts';
import type { EmailProvider, OutgoingEmail } from './provider.types.ts';
import { readAttachment } from './read-attachment.ts';

/** The SES message tag that carries our message id; SES echoes tags in its event notifications. */
export const SES_MESSAGE_TAG = 'tidings_message_id';

export type SesOptions = {
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Another endpoint than the region's (a VPC endpoint; a loopback fake in tests). */
  endpoint?: string;
  configurationSet?: string;
  timeoutMs: number;
};

/** SES errors that no retry will fix, whatever status they came with. */
const PERMANENT_ERRORS = new Set([
  'MessageRejected',
  'MailFromDomainNotVerifiedException',
  'AccountSuspendedException',
  'SendingPausedException',
  'BadRequestException',
  'NotFoundException',
]);

/** How long the account's MaxSendRate is trusted before it is read again. */
const SEND_RATE_TTL_MS = 10 * 60_000;

type SesServiceError = Error & { $metadata?: { httpStatusCode?: number }; $fault?: 'client' | 'server' };

function providerError(error: unknown): ProviderError {
  // a service error carries the answer's metadata and fault; anything else never got an answer
  if (error instanceof Error && '$fault' in error) {
    const status = (error as SesServiceError).$metadata?.httpStatusCode;
    // SES's throttle (beyond the account's MaxSendRate): the message waits, it is no outage
    if (error.name === 'TooManyRequestsException' || error.name === 'Throttling' || error.name === 'ThrottlingException' || isRateLimitStatus(status)) {
      return new ProviderError('ses', `SES throttled the send (${status ?? 'no response'}: ${error.name})`, { isRetryable: true, isRateLimited: true, status });
    }
    const isRetryable = !PERMANENT_ERRORS.has(error.name) && (status === undefined || isRetryableStatus(status));
    return new ProviderError('ses', `SES ${isRetryable ? 'failed' : 'refused the email'} (${status ?? 'no response'}: ${error.name})`, {
      isRetryable,
      status,
      reason: isRetryable ? 'provider_unavailable' : 'provider_rejected',
    });
  }
  // no answer: connection refused, timeout
  return new ProviderError('ses', `SES could not be reached (${(error as Error).name})`, { isRetryable: true, reason: 'provider_timeout' });
}

/**
 * Email through Amazon SES with the official `@aws-sdk/client-sesv2` (SendEmail, simple content), its own retries
 * off (the worker retries and fails over). Our message id travels as a message tag, so SNS notifications find the
 * message. SES takes no idempotency key, so a repeat after a lost answer can send twice.
 * @example const ses = createSesProvider({ region: 'eu-west-1', accessKeyId, secretAccessKey, timeoutMs: 15000 });
 */
export function createSesProvider(options: SesOptions): EmailProvider {
  // the SDK is loaded at the first send, not at start-up, so processes that never use SES do not pay for it
  let sdk: Promise<{
    client: SESv2Client;
    SendEmailCommand: typeof import('@aws-sdk/client-sesv2').SendEmailCommand;
    GetAccountCommand: typeof import('@aws-sdk/client-sesv2').GetAccountCommand;
  }> | null = null;
  // the account's MaxSendRate, read again after SEND_RATE_TTL_MS (a raised quota applies without a restart)
  let sendRate: { value: Promise<number | undefined>; readAt: number } | null = null;
  const loadSdk = async () => {
    const { SESv2Client, SendEmailCommand, GetAccountCommand } = await import('@aws-sdk/client-sesv2');
    const client = new SESv2Client({
      region: options.region,
      endpoint: options.endpoint,
      credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey },
      maxAttempts: 1,
      requestHandler: { requestTimeout: options.timeoutMs, connectionTimeout: options.timeoutMs },
    });
    return { client, SendEmailCommand, GetAccountCommand };
  };
  const sdkLoaded = () =>
    (sdk ??= loadSdk().catch((error: unknown) => {
      sdk = null; // loading failed: the next call tries again
      throw error;
    }));
  return {
    name: 'ses',
    dedupesRepeats: false,
    maxSendRate() {
      if (!sendRate || Date.now() - sendRate.readAt > SEND_RATE_TTL_MS) {
        const value = sdkLoaded()
          .then(({ client, GetAccountCommand }) => client.send(new GetAccountCommand({}), { abortSignal: AbortSignal.timeout(options.timeoutMs) }))
          .then((account) => account.SendQuota?.MaxSendRate || undefined)
          // unknown for now (SES unreachable): unpaced until the next reading, as before pacing existed
          .catch(() => undefined);
        sendRate = { value, readAt: Date.now() };
      }
      return sendRate.value;
    },
    async sendEmail(email: OutgoingEmail) {
      const { client, SendEmailCommand } = await sdkLoaded();
      // SES takes attachments as bytes in the request
      const attachments = await Promise.all(
        (email.attachments ?? []).map(async (a) => ({
          FileName: a.filename,
          ContentType: a.contentType,
          RawContent: await readAttachment(a),
          ...(a.contentId ? { ContentId: a.contentId, ContentDisposition: 'INLINE' as const } : { ContentDisposition: 'ATTACHMENT' as const }),
        })),
      );
      const command = new SendEmailCommand({
        FromEmailAddress: email.from,
        Destination: { ToAddresses: [email.to].flat(), CcAddresses: email.cc, BccAddresses: email.bcc },
        ReplyToAddresses: email.replyTo,
        Content: {
          Simple: {
            Subject: { Data: email.subject, Charset: 'UTF-8' },
            Body: {
              ...(email.text ? { Text: { Data: email.text, Charset: 'UTF-8' } } : {}),
              ...(email.html ? { Html: { Data: email.html, Charset: 'UTF-8' } } : {}),
            },
            ...(email.headers ? { Headers: Object.entries(email.headers).map(([Name, Value]) => ({ Name, Value })) } : {}),
            ...(attachments.length > 0 ? { Attachments: attachments } : {}),
          },
        },
        EmailTags: [{ Name: SES_MESSAGE_TAG, Value: email.messageId }],
        ConfigurationSetName: options.configurationSet,
      });
      try {
        const result = await client.send(command, { abortSignal: AbortSignal.timeout(options.timeoutMs) });
        if (!result.MessageId) throw new ProviderError('ses', 'SES answered without a message id', { isRetryable: true });
        return { providerMessageId: result.MessageId };
      } catch (error) {
        if (error instanceof ProviderError) throw error;
        throw providerError(error);
      }
    },
  };
}
