import { parseOneAddress, type ParsedMailbox } from 'email-addresses';
import { parseEmail } from './recipients.ts';

/** What parseEmail answered before its fast path: the RFC 5322 parser alone. */
function byParser(input: string) {
  const parsed = parseOneAddress({ input, rejectTLD: true });
  if (parsed?.type !== 'mailbox') return null;
  const mailbox = parsed as ParsedMailbox;
  return mailbox.name ? null : { address: mailbox.address.toLowerCase(), name: null, domain: mailbox.domain.toLowerCase() };
}

describe('parseEmail', () => {
  it('answers every address exactly as the RFC 5322 parser does (random addresses near the fast path and beyond it)', () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const everyday = 'aZ09_%+-..';
    const anything = `${everyday}@@ "(),;:<>[]\\'!#$&*=?^\`{|}~é`;
    for (let i = 0; i < 20_000; i += 1) {
      const alphabet = random() < 0.6 ? everyday : anything;
      const length = 1 + Math.floor(random() * 24);
      let input = '';
      for (let j = 0; j < length; j += 1) input += alphabet[Math.floor(random() * alphabet.length)];
      if (random() < 0.5) input = `${input.replace(/@/g, '')}@${['example.com', 'a.b', 'x-y.co.uk', 'nodot', '-a.b', 'a..b'][i % 6]}`;
      expect([input, parseEmail(input)]).toEqual([input, byParser(input)]);
    }
  });

  it('takes everyday addresses, lower-cased, and refuses what is not one', () => {
    expect(parseEmail('Ada.Lovelace+news@Example.COM')).toEqual({ address: 'ada.lovelace+news@example.com', name: null, domain: 'example.com' });
    for (const bad of ['ada@localhost', 'ada@', '@example.com', 'a..b@example.com', '.a@example.com', 'a.@example.com', 'Ada <ada@example.com>']) {
      expect([bad, parseEmail(bad)]).toEqual([bad, null]);
    }
    expect(parseEmail('Ada <Ada@Example.com>', { allowName: true })).toEqual({ address: 'ada@example.com', name: 'Ada', domain: 'example.com' });
  });
});
