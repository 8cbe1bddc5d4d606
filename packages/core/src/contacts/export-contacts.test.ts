import { csvField } from './export-contacts.ts';

describe('csvField', () => {
  it('quotes commas, quotes and line breaks (RFC 4180)', () => {
    expect(csvField('Lovelace, Ada')).toBe('"Lovelace, Ada"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField(null)).toBe('');
    expect(csvField({ plan: 'pro' })).toBe('"{""plan"":""pro""}"');
  });

  it('defuses a text a spreadsheet would run as a formula, and leaves phones and numbers alone', () => {
    expect(csvField('=HYPERLINK("http://example.com","x")')).toBe(`"'=HYPERLINK(""http://example.com"",""x"")"`);
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('+cmd|x')).toBe("'+cmd|x");
    expect(csvField('-2+3')).toBe("'-2+3");
    expect(csvField('\tx')).toBe("'\tx");
    expect(csvField('+14155550123')).toBe('+14155550123');
    expect(csvField('-12.5')).toBe('-12.5');
    expect(csvField('Ada')).toBe('Ada');
  });
});
