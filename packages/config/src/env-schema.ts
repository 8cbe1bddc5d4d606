// The environment variables an install reads, with their defaults and what each means: the one schema of them.
import { z } from 'zod';
import { apiEnv } from './env-api.ts';
import { databaseEnv } from './env-database.ts';
import { providersEnv } from './env-providers.ts';
import { smtpSubmissionEnv } from './env-smtp-submission.ts';
import { sendWorkerEnv, webhookEnv } from './env-workers.ts';

export { PASSWORD_HASH_COST_PRODUCTION } from './env-api.ts';
export { EMAIL_PROVIDER_NAMES, SMS_PROVIDER_NAMES, type EmailProviderName, type SmsProviderName } from './env-providers.ts';

/** Every setting Tidings reads from the environment, with the local defaults `npm start` runs on. */
export const EnvSchema = z.object({
  // Postgres (the primary, its replicas) and Redis
  ...databaseEnv,
  // the API and the dashboard: ports, public URLs, rate limits, template rendering, secrets; NODE_ENV and LOG_LEVEL
  ...apiEnv,
  // the email and SMS providers: which ones, in which order, their accounts, pace and circuit
  ...providersEnv,
  // the webhook-worker, and the limits on webhook endpoints and replays
  ...webhookEnv,
  // SMTP submission (apps/smtp)
  ...smtpSubmissionEnv,
  // the send-worker: queues, broadcast fan-out, sending and retries, the outbox, sweeps, sandbox, retention
  ...sendWorkerEnv,
});
