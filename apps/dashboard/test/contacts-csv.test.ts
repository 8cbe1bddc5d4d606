// The CSV reading of the contacts import: quoting, blank lines, columns and values.
import { attributeFromText, attributeToText } from '../src/attribute-text.ts';
import { csvColumns, csvContact, parseCsv } from '../src/contacts-csv.ts';

describe('contacts CSV', () => {
  it('reads quoted fields with commas, quotes and line breaks, CRLF and a BOM, and skips blank lines', () => {
    const text = '\uFEFFemail,note\r\n"a@x.com","pro, ""yearly""\nsecond line"\r\n\r\nb@x.com,\n';
    expect(parseCsv(text)).toEqual([
      ['email', 'note'],
      ['a@x.com', 'pro, "yearly"\nsecond line'],
      ['b@x.com', ''],
    ]);
  });

  it('maps known columns in any spelling, others to attributes, and refuses a header it cannot use', () => {
    expect(csvColumns(['Email', 'first_name', 'Last Name', 'SMS-subscribed', 'plan'])).toEqual([
      { field: 'email' },
      { field: 'firstName' },
      { field: 'lastName' },
      { field: 'smsSubscribed' },
      { attribute: 'plan' },
    ]);
    expect(csvColumns(['email', 'favourite colour'])).toMatch(/^Column “favourite colour”/);
    expect(csvColumns(['firstName', 'plan'])).toMatch(/email or a phone column/);
  });

  it('turns a record into a bulkCreate row: empty cells left out, flags and typed attributes', () => {
    const columns = csvColumns(['email', 'emailSubscribed', 'smsSubscribed', 'seats', 'zip', 'plan', 'firstName']);
    expect(typeof columns).not.toBe('string');
    expect(csvContact(columns as Exclude<typeof columns, string>, ['a@x.com', 'no', 'maybe', '12', '02134', 'pro', ''])).toEqual({
      email: 'a@x.com',
      emailSubscribed: false,
      smsSubscribed: 'maybe',
      attributes: { seats: 12, zip: '02134', plan: 'pro' },
    });
  });

  it('attribute text round-trips every JSON value', () => {
    for (const value of ['pro', '12', 'true', '', ' x', 12, 1.5, false, null, ['a', 1], { a: { b: 'c' } }]) {
      expect(attributeFromText(attributeToText(value))).toEqual(value);
    }
  });
});
