import { AttributeKey, type JsonValue } from '@tidings/contracts';
import { attributeFromText } from './attribute-text.ts';

/**
 * The records of a CSV text (RFC 4180: quoted fields may hold commas, quotes as `""` and line breaks), without blank
 * lines or a byte-order mark.
 * @example parseCsv('email,plan\r\n"a@x.com","pro, yearly"\n') // [['email', 'plan'], ['a@x.com', 'pro, yearly']]
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  const source = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (quoted) {
      if (ch !== '"') field += ch;
      else if (source[i + 1] === '"') field += source[++i];
      else quoted = false;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      record.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && source[i + 1] === '\n') i++;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else field += ch;
  }
  if (field !== '' || record.length > 0) records.push([...record, field]);
  return records.filter((r) => r.some((cell) => cell.trim() !== ''));
}

const CONTACT_COLUMNS: Record<string, string> = {
  email: 'email',
  phone: 'phone',
  firstname: 'firstName',
  lastname: 'lastName',
  emailsubscribed: 'emailSubscribed',
  smssubscribed: 'smsSubscribed',
};
const FLAGS: Record<string, boolean> = { true: true, yes: true, '1': true, false: false, no: false, '0': false };

/** What each column of a CSV header fills: a contact field, or an attribute of that key. */
export type CsvColumns = { field?: string; attribute?: string }[];

/**
 * The columns of a contacts CSV header: email, phone, first name, last name, emailSubscribed, smsSubscribed (in any
 * case, with or without `_`, `-` or spaces), and every other column an attribute. Throws a message for a header
 * that cannot be imported.
 * @example csvColumns(['Email', 'first_name', 'plan']) // [{ field: 'email' }, { field: 'firstName' }, { attribute: 'plan' }]
 */
export function csvColumns(header: string[]): CsvColumns | string {
  const columns: CsvColumns = [];
  for (const name of header.map((h) => h.trim())) {
    const field = CONTACT_COLUMNS[name.toLowerCase().replace(/[\s_-]/g, '')];
    if (field) columns.push({ field });
    else if (AttributeKey.safeParse(name).success) columns.push({ attribute: name });
    else return `Column “${name.slice(0, 80)}”: attribute names are 1 to 64 letters, digits, _ or -, starting with a letter or _.`;
  }
  if (!columns.some((c) => c.field === 'email' || c.field === 'phone')) return 'The first line must name the columns, with an email or a phone column.';
  return columns;
}

/**
 * One CSV record as a contact.bulkCreate row: empty cells are left out, flags read yes/no, true/false or 1/0 (any
 * other text is left for the row's validation to refuse), attributes as {@link attributeFromText} reads them.
 * @example csvContact([{ field: 'email' }, { attribute: 'seats' }], ['a@x.com', '12']) // { email: 'a@x.com', attributes: { seats: 12 } }
 */
export function csvContact(columns: CsvColumns, cells: string[]): Record<string, unknown> {
  const contact: Record<string, unknown> = {};
  const attributes: Record<string, JsonValue> = {};
  columns.forEach((column, index) => {
    const cell = (cells[index] ?? '').trim();
    if (cell === '') return;
    if (column.attribute) attributes[column.attribute] = attributeFromText(cell)!;
    else if (column.field === 'emailSubscribed' || column.field === 'smsSubscribed') contact[column.field] = FLAGS[cell.toLowerCase()] ?? cell;
    else contact[column.field!] = cell;
  });
  if (Object.keys(attributes).length > 0) contact.attributes = attributes;
  return contact;
}
