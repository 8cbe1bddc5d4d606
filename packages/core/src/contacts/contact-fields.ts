import type { Contact, JsonValue } from '@tidings/contracts';
import type { Contact as ContactRow } from '@tidings/db';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { AppError } from '../errors.ts';
import { contactTopicsOf } from '../topics/contact-topics.ts';

/**
 * The API's view of a contact row.
 * @example c.json(toContact(row), 200)
 */
export function toContact(row: ContactRow): Contact {
  return {
    id: row.id,
    email: row.email,
    phone: row.phone,
    firstName: row.firstName,
    lastName: row.lastName,
    attributes: (row.attributes ?? {}) as Contact['attributes'],
    emailSubscribed: row.emailSubscribed,
    smsSubscribed: row.smsSubscribed,
    topics: contactTopicsOf(row.topics),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * Emails are compared and stored lower-cased, so `Ada@x.com` and `ada@x.com` are one contact.
 * @example normalizeEmail(' Ada@Example.COM ') // 'ada@example.com'
 */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * The E.164 form of a phone number written with its country code (`+1 (415) 555-0123` -> `+14155550123`), or null
 * when libphonenumber does not take it for a valid number.
 * @example toE164('+1 (415) 555-2671') // '+14155552671'; toE164('12345') // null
 */
export function toE164(phone: string): string | null {
  const parsed = parsePhoneNumberFromString(phone.trim());
  return parsed?.isValid() ? parsed.number : null;
}

/**
 * Like `toE164`, but a number that is not valid is BAD_REQUEST naming `field`.
 * @example const phone = requireE164(input.phone); // throws 400 'phone: must be a valid phone number ...'
 */
export function requireE164(phone: string, field = 'phone'): string {
  const e164 = toE164(phone);
  if (!e164) throw new AppError('BAD_REQUEST', `${field}: must be a valid phone number with its country code, such as +14155550123`);
  return e164;
}

/**
 * Attributes without the keys whose value is null (on create, null means "not set").
 * @example withoutNulls({ plan: 'pro', gone: null }) // { plan: 'pro' }
 */
export function withoutNulls(attributes: Record<string, JsonValue> | undefined): Record<string, JsonValue> {
  return Object.fromEntries(Object.entries(attributes ?? {}).filter(([, v]) => v !== null && v !== undefined));
}

/**
 * The field ('email' or 'phone') whose unique index `error` violated, or null for any other error. Prisma reports
 * the index through the driver adapter both for its own queries (P2002) and for raw ones (P2010).
 * @example catch (error) { const field = uniqueViolationField(error); if (field) throw duplicateContact(field); throw error; }
 */
export function uniqueViolationField(error: unknown): 'email' | 'phone' | null {
  const e = error as { code?: string; meta?: { driverAdapterError?: { cause?: { constraint?: { index?: string }; originalMessage?: string } } } };
  if (e?.code !== 'P2002' && e?.code !== 'P2010') return null;
  const cause = e.meta?.driverAdapterError?.cause;
  const where = `${cause?.constraint?.index ?? ''} ${cause?.originalMessage ?? ''}`;
  if (where.includes('Contact_orgId_email_key')) return 'email';
  if (where.includes('Contact_orgId_phone_key')) return 'phone';
  return null;
}

/**
 * The 409 for a contact whose email or phone another contact of the organization already has.
 * @example throw duplicateContact('email'); // 409 'email: another contact in this organization has this email'
 */
export function duplicateContact(field: 'email' | 'phone'): AppError {
  return new AppError('CONFLICT', `${field}: another contact in this organization has this ${field}`);
}
