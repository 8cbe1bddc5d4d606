import { storableText, Timestamp } from './common.ts';
import { z } from './z.ts';

export const DnsRecordStatus = z.enum(['pending', 'verified', 'failed']).openapi({
  description: '`pending`: not found in DNS yet. `verified`: found with the expected value. `failed`: found with another value.',
});

const dnsRecordExamples = [
  { purpose: 'returnPath', type: 'MX', name: 'send.example.com', value: 'feedback-smtp.us-east-1.amazonses.com', priority: 10, required: true, status: 'verified' },
  { purpose: 'spf', type: 'TXT', name: 'send.example.com', value: 'v=spf1 include:amazonses.com ~all', required: true, status: 'verified' },
  {
    purpose: 'dkim',
    type: 'TXT',
    name: 'resend._domainkey.example.com',
    value:
      'p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC7vbqajDw4o6gJy8UtmIbkcpnkO3Kwc4qsEnSZp/TR+fQi62F79RHWmwKOtFmwteURgLbj7D/WGNNIDBpFlw0akoIHM3K+QwNAybS5IIgtVAr0yKqvmy2FKVw0HiCSR0MqJOzQHpFpDrg1z3nY1Qz9DHeYl5H0C2oP5Ig2dLpQIDAQAB',
    required: true,
    status: 'verified',
  },
  { purpose: 'dmarc', type: 'TXT', name: '_dmarc.example.com', value: 'v=DMARC1; p=none;', required: false, status: 'pending' },
] as const;

export const DnsRecord = z
  .object({
    purpose: z.enum(['spf', 'dkim', 'dmarc', 'returnPath']).openapi({ description: 'What the record is for.' }),
    type: z.enum(['TXT', 'MX', 'CNAME']),
    name: z.string().openapi({ description: 'Fully qualified name to publish the record at.', example: 'send.example.com' }),
    value: z.string().openapi({ example: 'v=spf1 include:amazonses.com ~all' }),
    priority: z.number().int().optional().openapi({ description: 'MX records only.' }),
    required: z.boolean().openapi({ description: 'Whether verification waits for this record (DMARC is recommended, not required).' }),
    status: DnsRecordStatus,
  })
  .openapi('DnsRecord', { example: dnsRecordExamples[1] });
export type DnsRecord = z.infer<typeof DnsRecord>;

const emailDomainExample = {
  id: 'dom_01JD8Z5Q9X4N7W2M3K6P0R1T5V',
  name: 'example.com',
  status: 'verified',
  provider: 'resend',
  records: [...dnsRecordExamples],
  defaultSender: { fromName: 'Acme', fromAddress: 'hello@example.com', replyTo: 'support@example.com' },
  openTracking: false,
  clickTracking: true,
  verifiedAt: '2026-11-23T08:12:00.000Z',
  lastCheckedAt: '2026-11-23T08:12:00.000Z',
  createdAt: '2026-11-23T08:00:00.000Z',
  updatedAt: '2026-11-23T08:15:00.000Z',
} as const;

export const EmailDomain = z
  .object({
    id: z.string().openapi({ example: 'dom_01JD8Z5Q9X4N7W2M3K6P0R1T5V' }),
    name: z.string().openapi({ example: 'example.com' }),
    status: z.enum(['pending', 'verified', 'failed']).openapi({
      description: '`verified` once every required record matches; `failed` when still unverified 72 hours after it was added.',
    }),
    provider: z.string().openapi({ description: '`resend`, or `sandbox` for test keys and installs without Resend.' }),
    records: z.array(DnsRecord),
    defaultSender: z
      .object({ fromName: z.string().nullable(), fromAddress: z.string(), replyTo: z.string().nullable() })
      .nullable()
      .openapi({ description: 'Used by message.send when `from` is absent; set with emailDomain.setDefault.' }),
    openTracking: z.boolean().openapi({ description: "Tidings' own open tracking (a 1x1 image) of email sent from this domain; a send's `tracking.opens` overrides it." }),
    clickTracking: z.boolean().openapi({
      description: "Tidings' own click tracking (each http(s) link through the click redirect) of email sent from this domain; a send's `tracking.clicks` overrides it.",
    }),
    verifiedAt: Timestamp.nullable(),
    lastCheckedAt: Timestamp.nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('EmailDomain', { example: emailDomainExample });
export type EmailDomain = z.infer<typeof EmailDomain>;

export const AddEmailDomainBody = z
  .strictObject({
    name: storableText().trim().min(1).max(253).openapi({
      description: 'A registrable domain or a subdomain of one, such as `example.com` or `mail.example.com`; no scheme or path.',
      example: 'example.com',
    }),
  })
  .openapi('AddEmailDomainBody', { example: { name: 'example.com' } });
export type AddEmailDomainBody = z.infer<typeof AddEmailDomainBody>;

export const UpdateEmailDomainBody = z
  .strictObject({
    openTracking: z.boolean().optional(),
    clickTracking: z.boolean().optional(),
  })
  .openapi('UpdateEmailDomainBody', { example: { openTracking: true, clickTracking: true } });
export type UpdateEmailDomainBody = z.infer<typeof UpdateEmailDomainBody>;

export const SetDefaultSenderBody = z
  .strictObject({
    fromName: storableText().trim().min(1).max(100).openapi({ example: 'Acme' }),
    fromAddress: z.email().max(254).openapi({ description: 'An address on this domain.', example: 'hello@example.com' }),
    replyTo: z.email().max(254).optional().openapi({ example: 'support@example.com' }),
  })
  .openapi('SetDefaultSenderBody', { example: { fromName: 'Acme', fromAddress: 'hello@example.com', replyTo: 'support@example.com' } });
export type SetDefaultSenderBody = z.infer<typeof SetDefaultSenderBody>;
