import { storableText, Timestamp } from './common.ts';
import { z } from './z.ts';

export const PhoneNumberType = z.enum(['local', 'tollFree', 'mobile']);
export type PhoneNumberType = z.infer<typeof PhoneNumberType>;

/**
 * Messages per second a number sends at unless set: a US long code on 10DLC about 1, toll-free a few (short codes,
 * up to 100, are set by hand).
 * @example defaultMessagesPerSecond('tollFree') // 3
 */
export function defaultMessagesPerSecond(type: string): number {
  return type === 'tollFree' ? 3 : 1;
}

const E164 = z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 number such as +14155550123');

const availablePhoneNumberExample = {
  number: '+14155550123',
  type: 'local',
  country: 'US',
  region: 'CA',
  locality: 'San Francisco',
  features: ['sms', 'mms', 'voice'],
  monthlyCost: { amount: '1.00', currency: 'USD' },
} as const;

export const AvailablePhoneNumber = z
  .object({
    number: z.string().openapi({ example: '+14155550123' }),
    type: PhoneNumberType,
    country: z.string().openapi({ example: 'US' }),
    region: z.string().nullable().openapi({ example: 'CA' }),
    locality: z.string().nullable().openapi({ example: 'San Francisco' }),
    features: z.array(z.string()).openapi({ example: ['sms', 'mms', 'voice'] }),
    monthlyCost: z.object({ amount: z.string(), currency: z.string() }).nullable(),
  })
  .openapi('AvailablePhoneNumber', { example: availablePhoneNumberExample });
export type AvailablePhoneNumber = z.infer<typeof AvailablePhoneNumber>;

export const AvailablePhoneNumberList = z.object({ data: z.array(AvailablePhoneNumber) }).openapi('AvailablePhoneNumberList', { example: { data: [availablePhoneNumberExample] } });

export const SearchPhoneNumbersQuery = z.strictObject({
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166 alpha-2 code such as US')
    .transform((v) => v.toUpperCase())
    .openapi({ description: 'ISO 3166 alpha-2 country code.', example: 'US' }),
  areaCode: z
    .string()
    .regex(/^\d{1,5}$/, 'must be 1 to 5 digits')
    .optional()
    .openapi({ example: '415' }),
  contains: z
    .string()
    .regex(/^\d{1,10}$/, 'must be 1 to 10 digits')
    .optional()
    .openapi({ description: 'Digits the number must contain.' }),
  type: PhoneNumberType.optional().openapi({ description: 'Defaults to `local`.' }),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});
export type SearchPhoneNumbersQuery = z.infer<typeof SearchPhoneNumbersQuery>;

const replyText = storableText().trim().min(1).max(1600);
/** The answers to the SMS keywords sent to this number; an absent one is the install's default. */
export const KeywordReplies = z
  .strictObject({
    stop: replyText.optional().openapi({ description: 'The one confirmation sent after STOP (or a synonym): the last message the number gets until it writes START.' }),
    start: replyText.optional().openapi({ description: 'The confirmation sent after START (or a synonym).' }),
    help: replyText.optional().openapi({ description: 'The answer to HELP or INFO, sent whether the number opted out or not.' }),
  })
  .openapi('KeywordReplies', {
    description: 'Texts answering inbound keywords. Unset: SMS_STOP_REPLY, SMS_START_REPLY, SMS_HELP_TEXT, else a default naming the organization.',
    example: { help: 'Acme alerts: reply STOP to unsubscribe. Help at acme.com/sms.' },
  });
export type KeywordReplies = z.infer<typeof KeywordReplies>;

const phoneNumberExample = {
  id: 'pn_01JD8Z5Q9X4N7W2M3K6P0R1T5V',
  number: '+14155550123',
  friendlyName: 'Support line',
  isDefault: true,
  type: 'local',
  country: 'US',
  provider: 'telnyx',
  replies: { help: 'Acme alerts: reply STOP to unsubscribe. Help at acme.com/sms.' },
  messagesPerSecond: 1,
  createdAt: '2026-11-23T08:00:00.000Z',
  updatedAt: '2026-11-23T08:00:00.000Z',
} as const;

export const PhoneNumber = z
  .object({
    id: z.string().openapi({ example: 'pn_01JD8Z5Q9X4N7W2M3K6P0R1T5V' }),
    number: z.string().openapi({ example: '+14155550123' }),
    friendlyName: z.string().nullable(),
    isDefault: z.boolean().openapi({ description: 'Used by message.send when an SMS has no `from`. At most one per organization.' }),
    type: PhoneNumberType,
    country: z.string().nullable(),
    provider: z.string().openapi({ description: '`telnyx`, or `sandbox` for test keys and installs without Telnyx.' }),
    replies: KeywordReplies,
    messagesPerSecond: z.number().openapi({
      description: "Messages per second this number sends at, shared by every send-worker: set by phoneNumber.update, else its type's default (a local long code 1, toll-free 3).",
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('PhoneNumber', { example: phoneNumberExample });
export type PhoneNumber = z.infer<typeof PhoneNumber>;

export const PurchasePhoneNumberBody = z
  .strictObject({
    number: E164.openapi({ description: 'A number from phoneNumber.searchAvailable, in E.164.', example: '+14155550123' }),
    friendlyName: storableText().trim().min(1).max(100).optional().openapi({ example: 'Support line' }),
  })
  .openapi('PurchasePhoneNumberBody', { example: { number: '+14155550123', friendlyName: 'Support line' } });
export type PurchasePhoneNumberBody = z.infer<typeof PurchasePhoneNumberBody>;

export const UpdatePhoneNumberBody = z
  .strictObject({
    friendlyName: storableText().trim().min(1).max(100).nullable().optional().openapi({ description: '`null` clears it.' }),
    isDefault: z.boolean().optional().openapi({ description: '`true` makes this the default and unsets the previous one.' }),
    replies: KeywordReplies.optional().openapi({ description: 'Replaces the answers to STOP, START and HELP; `{}` goes back to the defaults.' }),
    messagesPerSecond: z
      .number()
      .min(0.01)
      .max(1000)
      .nullable()
      .optional()
      .openapi({ description: "The number's sending rate (what its carrier registration allows); `null` goes back to its type's default." }),
  })
  .refine((b) => b.friendlyName !== undefined || b.isDefault !== undefined || b.replies !== undefined || b.messagesPerSecond !== undefined, {
    message: 'give friendlyName, isDefault, replies or messagesPerSecond',
    path: ['friendlyName'],
  })
  .openapi('UpdatePhoneNumberBody', { example: { friendlyName: 'Support line', isDefault: true } });
export type UpdatePhoneNumberBody = z.infer<typeof UpdatePhoneNumberBody>;
