import { AppError } from '../errors.ts';
import { normalizeDomainName } from './domain-name.ts';
import { matchesRecord } from './dns-check.ts';

describe('normalizeDomainName', () => {
  it('lower-cases, drops a final dot, keeps subdomains and turns IDNs into punycode', () => {
    expect(normalizeDomainName(' Example.COM. ')).toBe('example.com');
    expect(normalizeDomainName('mail.example.co.uk')).toBe('mail.example.co.uk');
    expect(normalizeDomainName('bücher.de')).toBe('xn--bcher-kva.de');
  });

  it.each([
    ['http://example.com', /without scheme/],
    ['example.com:25', /without scheme/],
    ['example', /registrable/],
    ['co.uk', /registrable/],
    ['com', /registrable/],
    ['example.notatld', /registrable/],
    ['10.0.0.1', /IP address|registrable/],
    ['a..b.com', /not a valid domain/],
    [`${'a'.repeat(64)}.com`, /not a valid domain/],
  ])('refuses %s', (input, message) => {
    expect(() => normalizeDomainName(input)).toThrow(AppError);
    expect(() => normalizeDomainName(input)).toThrow(message);
  });
});

describe('matchesRecord', () => {
  it('SPF: a v=spf1 record with our include among others; not without it, not another version', () => {
    const spf = { purpose: 'spf' as const, value: 'v=spf1 include:amazonses.com ~all' };
    expect(matchesRecord(spf, 'v=spf1 include:amazonses.com ~all')).toBe(true);
    expect(matchesRecord(spf, 'v=spf1 a mx include:_spf.google.com include:amazonses.com -all')).toBe(true);
    expect(matchesRecord(spf, 'v=spf1 include:_spf.google.com -all')).toBe(false);
    expect(matchesRecord(spf, 'spf2.0/pra include:amazonses.com')).toBe(false);
  });

  it('DMARC: any DMARC1 policy; DKIM: the exact key, ignoring spaces; host names: ignoring case and a final dot', () => {
    expect(matchesRecord({ purpose: 'dmarc', value: 'v=DMARC1; p=none;' }, 'v=DMARC1; p=reject; rua=mailto:d@example.com')).toBe(true);
    expect(matchesRecord({ purpose: 'dmarc', value: 'v=DMARC1; p=none;' }, 'v=spf1 -all')).toBe(false);
    expect(matchesRecord({ purpose: 'dkim', value: 'p=MIGfMA0' }, 'p=MIGf MA0')).toBe(true);
    expect(matchesRecord({ purpose: 'dkim', value: 'p=MIGfMA0' }, 'p=MIGfMA1')).toBe(false);
    expect(matchesRecord({ purpose: 'dkim', value: 'p=MIGfMA0' }, 'p=migfma0')).toBe(false);
    expect(matchesRecord({ purpose: 'returnPath', value: 'feedback-smtp.us-east-1.amazonses.com' }, 'Feedback-SMTP.us-east-1.amazonses.com.')).toBe(true);
  });
});
