import { ListQuery, storableText, Timestamp } from './common.ts';
import { z } from './z.ts';

/** The limits of a verification, named once: the API checks them and the docs quote them. */
export const VERIFY_LIMITS = {
  codeLength: { min: 4, max: 10, default: 6 },
  expiresInSeconds: { min: 60, max: 3600, default: 600 },
  /** Wrong codes before the verification is `max_attempts_reached`. */
  maxCheckAttempts: 5,
  /** Sends per `to` in a rolling window, and the window. */
  maxSendsPerWindow: 5,
  sendWindowSeconds: 600,
  /** The first resend cooldown; each further resend waits twice as long as the one before. */
  cooldownSeconds: 30,
} as const;

export const VerificationChannel = z.enum(['sms', 'email']);
export type VerificationChannel = z.infer<typeof VerificationChannel>;

export const VerificationStatus = z.enum(['pending', 'approved', 'expired', 'canceled', 'max_attempts_reached', 'failed']).openapi({
  description:
    '`pending`: a code is out; `approved`: the right code was checked (once); `expired`: past `expiresAt`; `max_attempts_reached`: five wrong codes; `canceled`; `failed`: its message could not be sent.',
});
export type VerificationStatus = z.infer<typeof VerificationStatus>;

const verificationExample = {
  id: 'ver_01JD8Z5Q9X4N7W2M3K6P0R1T5V',
  channelType: 'sms',
  to: '+14155550123',
  status: 'pending',
  expiresAt: '2026-12-07T08:10:00.000Z',
  sendAttempts: 1,
  checkAttempts: 0,
  messageIds: ['msg_01JD8Z5Q9X4N7W2M3K6P0R1T5W'],
  createdAt: '2026-12-07T08:00:00.000Z',
  approvedAt: null,
} as const;

export const Verification = z
  .object({
    id: z.string().openapi({ example: 'ver_01JD8Z5Q9X4N7W2M3K6P0R1T5V' }),
    channelType: VerificationChannel,
    to: z.string(),
    status: VerificationStatus,
    expiresAt: Timestamp,
    sendAttempts: z.number().int().openapi({ description: 'Messages sent with a code (the first and each resend).' }),
    checkAttempts: z.number().int().openapi({ description: 'Codes checked, right or wrong.' }),
    messageIds: z.array(z.string()).openapi({ description: 'Its messages, oldest first (message.get shows each; a live one with the code masked).' }),
    createdAt: Timestamp,
    approvedAt: Timestamp.nullable(),
  })
  .openapi('Verification', { description: 'A one-time code sent to `to`. Never carries the code.', example: verificationExample });
export type Verification = z.infer<typeof Verification>;

const { codeLength, expiresInSeconds } = VERIFY_LIMITS;

export const CreateVerificationBody = z
  .strictObject({
    channelType: VerificationChannel,
    to: storableText().trim().min(3).max(320).openapi({ description: 'An E.164 number (`sms`) or an email address (`email`).' }),
    codeLength: z.number().int().min(codeLength.min).max(codeLength.max).default(codeLength.default),
    expiresInSeconds: z.number().int().min(expiresInSeconds.min).max(expiresInSeconds.max).default(expiresInSeconds.default),
    templateId: storableText()
      .min(1)
      .max(64)
      .optional()
      .openapi({ description: "A template of the channel whose content uses `{{ code }}`; the English default (with the organization's name) otherwise." }),
    locale: storableText().min(2).max(35).optional().openapi({ description: 'A BCP 47 tag; the default texts are English, so it reaches a template as `{{ locale }}`.' }),
  })
  .openapi('CreateVerificationBody', { example: { channelType: 'sms', to: '+14155550123' } });
export type CreateVerificationBody = z.infer<typeof CreateVerificationBody>;

export const CheckVerificationBody = z
  .strictObject({ code: storableText().trim().min(1).max(32).openapi({ example: '492817' }) })
  .openapi('CheckVerificationBody', { example: { code: '492817' } });
export type CheckVerificationBody = z.infer<typeof CheckVerificationBody>;

export const VerificationCheck = z
  .object({ id: z.string(), status: VerificationStatus })
  .openapi('VerificationCheck', { example: { id: 'ver_01JD8Z5Q9X4N7W2M3K6P0R1T5V', status: 'approved' } });
export type VerificationCheck = z.infer<typeof VerificationCheck>;

export const VerificationListQuery = ListQuery.safeExtend({ status: VerificationStatus.optional(), channelType: VerificationChannel.optional() });
export type VerificationListQuery = z.infer<typeof VerificationListQuery>;

/** An ISO 3166 alpha-2 country code. */
const CountryCode = z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166 alpha-2 code such as US');

export const Organization = z
  .object({
    id: z.string().openapi({ example: 'org_01JD8Z5Q9X4N7W2M3K6P0R1T5V' }),
    name: z.string(),
    smsCountries: z.array(z.string()).openapi({ description: "Countries an SMS may go to; unless set, those of the organization's numbers." }),
    createdAt: Timestamp,
  })
  .openapi('Organization', { example: { id: 'org_01JD8Z5Q9X4N7W2M3K6P0R1T5V', name: 'Acme', smsCountries: ['US', 'CA'], createdAt: '2026-11-23T08:00:00.000Z' } });
export type Organization = z.infer<typeof Organization>;

export const UpdateOrganizationBody = z
  .strictObject({ smsCountries: z.array(CountryCode).max(250).optional() })
  .refine((t) => Object.keys(t).length > 0, { message: 'give at least one field to change' })
  .openapi('UpdateOrganizationBody', { example: { smsCountries: ['US', 'CA', 'GB'] } });
export type UpdateOrganizationBody = z.infer<typeof UpdateOrganizationBody>;
