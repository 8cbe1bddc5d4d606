import type { ContactFilterQuery } from '@tidings/contracts';
import type { Deps } from '../deps.ts';
import { contactFilters } from './contact.service.ts';
import { contactsMatching, selectAttributeKeys, selectExportBatch } from './contact.store.ts';

/** Contacts read per query: memory holds one batch whatever the organization's size. */
export const EXPORT_BATCH_SIZE = 1000;

const FIXED_COLUMNS = ['id', 'email', 'phone', 'firstName', 'lastName', 'emailSubscribed', 'smsSubscribed', 'createdAt', 'updatedAt'] as const;

/**
 * A text a spreadsheet would run as a formula (=, @, a tab or CR first, or + or - before anything but a number, so
 * E.164 phones stay as they are) gets a leading apostrophe, as OWASP advises for CSV files opened in spreadsheets.
 */
const FORMULA_START = /^(?:[=@\t\r]|[+-](?!\d+(?:\.\d+)?$))/;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote or line break; a string as it is (defused when a
 * spreadsheet would read it as a formula), anything else as JSON; absent is empty.
 * @example csvField('Lovelace, Ada') // '"Lovelace, Ada"'
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const raw = typeof value === 'string' ? value : value instanceof Date ? value.toISOString() : JSON.stringify(value);
  const text = typeof value === 'string' && FORMULA_START.test(raw) ? `'${raw}` : raw;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const csvLine = (fields: unknown[]) => `${fields.map(csvField).join(',')}\r\n`;

/**
 * contact.export: the contacts matching contact.list's filters as CSV, newest first, as a stream read in keyset
 * batches of EXPORT_BATCH_SIZE (one query each, only as fast as the client reads), so memory stays flat at any
 * size. Columns: the contact's fields, then one `attributes.<key>` column per attribute key any of them has (found by
 * one `jsonb_object_keys` query before the first row). An unknown `segmentId` is NOT_FOUND before anything is sent.
 * @example const csv = await exportContacts(deps, orgId, { subscribed: true }); return c.body(csv);
 */
export async function exportContacts(deps: Pick<Deps, 'db' | 'reads'>, orgId: string, query: ContactFilterQuery): Promise<ReadableStream<Uint8Array>> {
  const where = contactsMatching(orgId, await contactFilters(deps, orgId, query));
  const keys = (await selectAttributeKeys(deps.reads, where)).map((row) => row.key);
  const encoder = new TextEncoder();
  let after: { createdAt: Date; id: string } | null = null;
  let isHeaderSent = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!isHeaderSent) {
          isHeaderSent = true;
          return controller.enqueue(encoder.encode(csvLine([...FIXED_COLUMNS, ...keys.map((key) => `attributes.${key}`)])));
        }
        const rows = await selectExportBatch(deps.reads, where, after, EXPORT_BATCH_SIZE);
        if (rows.length === 0) return controller.close();
        const last = rows.at(-1)!;
        after = { createdAt: last.createdAt, id: last.id };
        const lines = rows.map((row) => {
          const attributes = (row.attributes ?? {}) as Record<string, unknown>;
          return csvLine([...FIXED_COLUMNS.map((column) => row[column]), ...keys.map((key) => attributes[key])]);
        });
        controller.enqueue(encoder.encode(lines.join('')));
        if (rows.length < EXPORT_BATCH_SIZE) controller.close();
      },
    },
    // one batch buffered ahead at most
    { highWaterMark: 1 },
  );
}
