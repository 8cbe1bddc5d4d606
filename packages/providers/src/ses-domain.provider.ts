import type { SESv2Client } from '@aws-sdk/client-sesv2';
import { dmarcRecord, type DomainProvider } from './domain-provider.ts';
import { isRetryableStatus, ProviderError } from './provider-error.ts';
import { REQUEST_TIMEOUT_MS } from './request-timeout.ts';

export type SesDomainOptions = { region: string; accessKeyId: string; secretAccessKey: string; endpoint?: string; configurationSet?: string };

type SesServiceError = Error & { $metadata?: { httpStatusCode?: number }; $fault?: 'client' | 'server' };

/** An SES failure as a ProviderError: the operation, status and error name, never SES's text. */
function providerError(operation: string, error: unknown): ProviderError {
  const status = error instanceof Error && '$fault' in error ? (error as SesServiceError).$metadata?.httpStatusCode : undefined;
  const name = error instanceof Error ? error.name : 'Error';
  const isRetryable = status === undefined || isRetryableStatus(status) || name === 'TooManyRequestsException';
  return new ProviderError('ses', `SES ${operation} failed (${status ?? 'no response'}: ${name})`, {
    isRetryable,
    status,
    // AlreadyExists: another account (or this one, outside Tidings) holds the identity
    reason: isRetryable ? 'provider_unavailable' : name === 'AlreadyExistsException' || name === 'BadRequestException' ? 'invalid_domain' : 'provider_rejected',
  });
}

/**
 * Sending domains as Amazon SES email identities with Easy DKIM, through the official `@aws-sdk/client-sesv2`:
 * CreateEmailIdentity returns three DKIM tokens, each published as a CNAME; GetEmailIdentity says whether SES has
 * verified the domain; DeleteEmailIdentity removes it. The identity's name is the domain, so it is the provider id.
 * @example const domains = createSesDomainProvider({ region: 'eu-west-1', accessKeyId, secretAccessKey });
 * const { records } = await domains.create('example.com');
 */
export function createSesDomainProvider(options: SesDomainOptions): DomainProvider {
  // loaded at first use, as for sending: processes that never provision at SES do not pay for the SDK
  let sdk: Promise<{ client: SESv2Client; commands: typeof import('@aws-sdk/client-sesv2') }> | null = null;
  const load = () =>
    (sdk ??= import('@aws-sdk/client-sesv2').then((commands) => ({
      commands,
      client: new commands.SESv2Client({
        region: options.region,
        endpoint: options.endpoint,
        credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey },
        maxAttempts: 1, // a repeated create would find the identity it made and look taken
        requestHandler: { requestTimeout: REQUEST_TIMEOUT_MS, connectionTimeout: REQUEST_TIMEOUT_MS },
      }),
    })));

  return {
    name: 'ses',
    async create(domainName) {
      const { client, commands } = await load();
      const created = await client.send(new commands.CreateEmailIdentityCommand({ EmailIdentity: domainName, ConfigurationSetName: options.configurationSet })).catch((error) => {
        throw providerError('identity create', error);
      });
      const tokens = created.DkimAttributes?.Tokens ?? [];
      const dkim = tokens.map((token) => ({
        purpose: 'dkim' as const,
        type: 'CNAME' as const,
        name: `${token}._domainkey.${domainName}`,
        value: `${token}.dkim.amazonses.com`,
        required: true,
      }));
      return { providerDomainId: domainName, records: [...dkim, dmarcRecord(domainName)] };
    },
    async delete(providerDomainId) {
      const { client, commands } = await load();
      await client.send(new commands.DeleteEmailIdentityCommand({ EmailIdentity: providerDomainId })).catch((error) => {
        if ((error as Error).name === 'NotFoundException') return; // SES no longer has it: removed
        throw providerError('identity delete', error);
      });
    },
    async status(providerDomainId) {
      const { client, commands } = await load();
      const identity = await client.send(new commands.GetEmailIdentityCommand({ EmailIdentity: providerDomainId })).catch((error) => {
        throw providerError('identity read', error);
      });
      if (identity.VerifiedForSendingStatus) return 'verified';
      const status = identity.VerificationStatus ?? identity.DkimAttributes?.Status;
      return status === 'FAILED' ? 'failed' : 'pending';
    },
  };
}
