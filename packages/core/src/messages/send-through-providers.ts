import type { Message as MessageRow } from '@tidings/db';
import { ProviderError, type OutgoingEmail, type OutgoingSms, type ProviderName } from '@tidings/providers';
import { SpanKind } from '@opentelemetry/api';
import { messageLaneOf } from '@tidings/queue';
import { inSpan, recordRecipients } from '@tidings/telemetry';
import type { Deps } from '../deps.ts';
import { SendDeferred } from '../pace/deferral.ts';
import { paceAccountFor } from '../pace/pace-accounts.ts';
import { correctProviderPace } from '../pace/pace-limiter.ts';
import { deferAfterRateLimit, takeSlotOrDefer } from '../pace/provider-pace.ts';
import { lastUnansweredProvider, recordAttemptError, recordProviderClaim } from './delivery.ts';

export type ProviderAttemptError = { code: string; message: string };

/** What the history and the message show for a failure: the provider's reason, never its raw answer beyond the message. */
export function attemptErrorOf(error: unknown): ProviderAttemptError {
  return error instanceof ProviderError ? { code: error.reason.toUpperCase(), message: error.message } : { code: 'INTERNAL_ERROR', message: 'The send failed; it will be retried' };
}

/** The last failure of an attempt in which every provider failed: retried later when `isRetryable`. */
export class SendAttemptFailed extends Error {
  constructor(
    readonly provider: ProviderName,
    readonly cause: unknown,
    readonly isRetryable: boolean,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'SendAttemptFailed';
  }
}

/**
 * One send attempt of a claimed message: its providers in order (deps.providers.sendingOrder: the sandbox for a
 * sandbox message, else the channel's list less the providers whose circuit is open). A retryable failure (timeout,
 * 5xx, connection) is recorded in the history with the provider's name and the next provider takes the same attempt
 * at once; a permanent one (the provider refused this message) ends the attempt without failover. Providers without
 * idempotency keys get a claim in the history before the call; when an earlier attempt's claim was left unanswered
 * (the process died mid-call), that provider goes first again, so a duplicate carries the same Message-ID, and the
 * repeat is counted. Every call is counted by provider, channel and outcome, and feeds the provider's circuit.
 * Each call keeps to its provider account's pace (pace/): a transactional message takes its slot or is deferred to a
 * booked one; a bulk one waits in the process's gate, batched where the provider can. A provider's 429 is no failure:
 * it neither fails over nor opens the circuit; the message is deferred (SendDeferred) to the slot after the wait.
 * `build` makes what a provider is given, again for each provider tried (an attachment's stream is read once).
 * @returns the provider that accepted the message and its id for it
 * @throws SendAttemptFailed with the last provider's error when no provider accepted it
 * @throws SendDeferred when the message is to wait for its provider's pace
 * @example const { provider, providerMessageId } = await sendThroughProviders(deps, claim.message);
 */
export async function sendThroughProviders(
  deps: Deps,
  message: MessageRow,
  build: { email(): Promise<OutgoingEmail>; sms(): OutgoingSms },
): Promise<{ provider: ProviderName; providerMessageId: string }> {
  const { providers, metrics } = deps;
  const channel = message.channelType;
  let order = providers.sendingOrder(channel, message.provider);
  if (message.attempts > 1) {
    const unanswered = await lastUnansweredProvider(deps, message.id);
    if (unanswered) {
      metrics.unconfirmedRepeats.inc({ provider: unanswered });
      deps.logger.warn({ messageId: message.id, provider: unanswered }, 'an earlier call was left unanswered; the provider may send this message twice');
      if (order.includes(unanswered as ProviderName)) order = [unanswered as ProviderName, ...order.filter((name) => name !== unanswered)];
    }
  }

  let failure: SendAttemptFailed | null = null;
  for (const name of order) {
    const emailProvider = channel === 'email' ? providers.email(name) : undefined;
    const smsProvider = channel === 'sms' ? providers.sms(name) : undefined;
    const provider = emailProvider ?? smsProvider;
    if (!provider) {
      // loadConfig requires the settings of every listed provider; this is a process built without them
      failure = new SendAttemptFailed(
        name,
        new ProviderError(name, `This process has no ${name} provider configured`, { isRetryable: false, reason: 'provider_not_configured' }),
        false,
      );
      continue;
    }
    const account = await paceAccountFor(deps, name, message);
    const lane = messageLaneOf(message);
    // a bulk email waits in the gate instead (batched where the provider can); everything else takes its own slot
    const isGated = account !== null && lane === 'bulk' && emailProvider !== undefined;
    if (account && !isGated) await takeSlotOrDefer(deps, account, message);
    // built for each provider (attachments are streams read once); a failure to build is ours, not the provider's
    const email = emailProvider ? await build.email() : null;
    if (!provider.dedupesRepeats) await recordProviderClaim(deps, message.id, name);
    try {
      const { providerMessageId, pace } = await inSpan('provider.send', SpanKind.CLIENT, providerSpanAttributes(name, message), async (span) => {
        try {
          const accepted = emailProvider
            ? isGated
              ? await deps.batchers.providerBatches.send(account, emailProvider, email!)
              : await emailProvider.sendEmail(email!)
            : await smsProvider!.sendSms(build.sms());
          span?.setAttribute('tidings.outcome', 'sent');
          return accepted;
        } catch (error) {
          span?.setAttributes({
            'tidings.outcome': error instanceof ProviderError && !error.isRetryable ? 'permanent_error' : 'retryable_error',
            'tidings.error_code': attemptErrorOf(error).code,
          });
          throw error;
        }
      });
      if (account && !isGated && pace) {
        // best effort: the send is done whatever the limiter says
        await correctProviderPace(deps, account, pace, { isRateLimited: false }).catch((err) => deps.logger.warn({ err, provider: name }, 'could not correct the provider pace'));
      }
      providers.circuit.recordSuccess(name);
      metrics.providerCalls.inc({ provider: name, channel, outcome: 'sent' });
      return { provider: name, providerMessageId };
    } catch (error) {
      if (error instanceof SendDeferred) throw error;
      if (error instanceof ProviderError && error.isRateLimited) {
        // the provider's limit: no failover, no circuit, no attempt; the message waits its turn
        metrics.providerCalls.inc({ provider: name, channel, outcome: 'rate_limited' });
        throw await deferAfterRateLimit(deps, { provider: name, account, lane }, error);
      }
      const isPermanent = error instanceof ProviderError && !error.isRetryable;
      metrics.providerCalls.inc({ provider: name, channel, outcome: isPermanent ? 'permanent_error' : 'retryable_error' });
      // a refusal is about this message, not the provider's health: it neither opens the circuit nor fails over
      if (isPermanent) throw new SendAttemptFailed(name, error, false);
      providers.circuit.recordFailure(name);
      await recordAttemptError(deps, message.id, attemptErrorOf(error), name);
      failure = new SendAttemptFailed(name, error, true);
    }
  }
  throw failure ?? new SendAttemptFailed(message.provider as ProviderName, new Error('No provider to send through'), false);
}

/** What a provider call's span says: never the body, the sender's settings or a key; the recipient only when allowed. */
function providerSpanAttributes(provider: ProviderName, message: MessageRow) {
  return {
    'tidings.provider': provider,
    'tidings.channel': message.channelType,
    'tidings.message_id': message.id,
    'tidings.org_id': message.orgId,
    'tidings.attempt': message.attempts,
    ...(recordRecipients() ? { 'tidings.recipient': message.to } : {}),
  };
}
